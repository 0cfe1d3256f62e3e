/**
 * Publish warnings for keys the engine accepts (definitions written for the
 * compatible engine must save unchanged) but that cannot have an effect here.
 * Each names the key's path, so a migrating author learns at publish, not
 * from a run that behaves differently than they were told.
 *
 * - A step `timeout` or `metadata.executionTimeoutMs` bounds an activity; a
 *   step whose plugin runs inside the workflow (waits, set-variable, log, …)
 *   or that runs no plugin (triggers, passthrough) has none. Waits take their
 *   timeout in `config.timeout`.
 * - Retry `jitter`: Temporal's retry policy has no jitter.
 * - `webhook-wait` `correlationKey`: the callback URL carries its own
 *   one-time token, so there is nothing to correlate.
 * - `webhook` `path`: webhook URLs end in a token minted at activation.
 * - `code-exec` `executionConfig` / `runtime` (deprecated upstream): the
 *   sandbox limits are the operator's.
 */
import type { DefinitionWarning, StepDefinition, WorkflowDefinition } from './definition';
import { isObject, type StepSource } from './normalize';
import { fieldPath, stepPlugin } from './validate-step';

export const KEY_IGNORED = 'DEFINITION_KEY_IGNORED';

/** Whether the step's plugin runs as an activity (the only place a step timeout applies). */
export function runsAsActivity(step: StepDefinition): boolean {
  if (step.type === 'trigger' || step.type === 'passthrough') return false;
  const plugin = stepPlugin(step);
  return plugin !== undefined && !plugin.inline;
}

export function ignoredKeyWarnings(def: WorkflowDefinition, sources: Map<string, StepSource>): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  const warn = (path: string, message: string) => warnings.push({ code: KEY_IGNORED, path, message });
  for (const [id, source] of sources) {
    const step = def.steps[id];
    const where = step.pluginType ? `plugin ${step.pluginType}` : `a step of type ${step.type}`;
    if (!runsAsActivity(step)) {
      const why = `has no effect on step "${id}": ${where} runs inside the workflow, not as an activity`;
      if (step.timeout !== undefined) warn(fieldPath(source, 'timeout'), `timeout ${why} (waits take config.timeout)`);
      if (isObject(step.metadata) && step.metadata.executionTimeoutMs !== undefined)
        warn(fieldPath(source, 'metadata', 'executionTimeoutMs'), `metadata.executionTimeoutMs ${why}`);
    }
    const retry = isObject(step.errorHandling) ? step.errorHandling.retryPolicy : undefined;
    if (retry !== undefined && (step.type === 'trigger' || step.type === 'passthrough'))
      warn(fieldPath(source, 'errorHandling', 'retryPolicy'), `retryPolicy has no effect on step "${id}": ${where} calls no plugin`);
    if (isObject(retry) && retry.jitter !== undefined)
      warn(
        fieldPath(source, 'errorHandling', 'retryPolicy', 'jitter'),
        'jitter has no effect: retries wait exactly the backoff interval (Temporal retry policies have no jitter)',
      );
    if (step.pluginType === 'code-exec' && isObject(step.config)) {
      for (const key of ['executionConfig', 'runtime'] as const)
        if (step.config[key] !== undefined)
          warn(
            fieldPath(source, 'config', key),
            `${key} (deprecated) has no effect: code-exec limits are fixed by the operator; its deadline follows the step timeout`,
          );
    }
    if (step.pluginType === 'webhook' && isObject(step.config) && step.config.path !== undefined)
      warn(
        fieldPath(source, 'config', 'path'),
        'path has no effect on a webhook trigger: its URL ends in an opaque token minted at activation (read it from the alias triggerStates)',
      );
    if (step.pluginType === 'webhook-wait' && isObject(step.config) && step.config.correlationKey !== undefined)
      warn(
        fieldPath(source, 'config', 'correlationKey'),
        'correlationKey has no effect on webhook-wait: its callback URL carries its own one-time token',
      );
  }
  return warnings;
}
