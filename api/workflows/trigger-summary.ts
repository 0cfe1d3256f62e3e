/**
 * The `triggers` of a publish or alias-write answer: for each trigger step of
 * the alias's revision, where it is reached now. A live webhook has its URL
 * (the alias's: it survives new revisions while the alias stays active); a
 * cron trigger its schedule, time zone and next runs as the cron dialect reads
 * them (cron-spec.ts, the same reading its Temporal schedule is given).
 */
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { TriggerDefinition } from '../../workflows/engine';
import { iso } from '../http/iso-date';
import { nextRuns } from './cron-spec';

/** How many next runs of a cron trigger an answer shows. */
export const NEXT_RUNS_SHOWN = 3;

export interface TriggerSummary {
  stepId: string;
  pluginType: string;
  alias: string;
  status: TriggerBindingEntity['status'];
  webhookUrl?: string;
  schedule?: string;
  timezone?: string;
  nextRuns?: string[];
}

export function webhookUrlOf(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/workflows/webhooks/${token}`;
}

/** The trigger steps of a definition's `triggers` (rebuilt by the server from the trigger steps). */
export function triggersIn(definition: unknown): TriggerDefinition[] {
  const triggers = (definition as { triggers?: unknown } | null | undefined)?.triggers;
  return Array.isArray(triggers) ? (triggers as TriggerDefinition[]) : [];
}

export function triggerSummaries(
  alias: string,
  triggers: TriggerDefinition[],
  bindings: TriggerBindingEntity[],
  publicBaseUrl: string,
  now = new Date(),
): TriggerSummary[] {
  return triggers.map((trigger) => {
    const binding = bindings.find((b) => b.aliasName === alias && b.triggerId === trigger.id);
    const summary: TriggerSummary = { stepId: trigger.id, pluginType: trigger.pluginType, alias, status: binding?.status ?? 'inactive' };
    if (binding?.status === 'live' && binding.webhookToken !== null) summary.webhookUrl = webhookUrlOf(publicBaseUrl, binding.webhookToken);
    if (trigger.pluginType === 'cron' && typeof trigger.config?.schedule === 'string') {
      const timezone = typeof trigger.config.timezone === 'string' ? trigger.config.timezone : 'UTC';
      summary.schedule = trigger.config.schedule;
      summary.timezone = timezone;
      summary.nextRuns = nextRuns(trigger.config.schedule, timezone, now, NEXT_RUNS_SHOWN).map(iso);
    }
    return summary;
  });
}
