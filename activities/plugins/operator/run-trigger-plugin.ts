/**
 * Runs an operator trigger plugin's `activate` or `deactivate` (inside the
 * trigger activity, ../../create-trigger-activities.ts) under the rules of
 * every operator plugin call: its network calls through the egress policy, a
 * deadline, its errors reported as the step errors are (its own `code`,
 * `retryable: false`, egress denials), and what it returns checked. What it
 * is given is its trigger's config and the one URL that starts executions of
 * its workflow's alias: no client, no token, nothing else of the service.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MAX_TRIGGER_STATE_BYTES, type TriggerLifecycleRequest, type TriggerLifecycleResult } from '../../../workflows/engine';
import type { EgressDenied, EgressPolicy } from '../../egress/policy';
import { withDeadline } from '../deadline';
import type { PluginContext } from '../plugin-context';
import type { OperatorPlugin } from './load-plugins';
import type { PluginTriggerContext } from './plugin-api';
import { denialRecordingFetch, limitedLogger, pluginFailure } from './run-operator-plugin';

/** How long `activate` or `deactivate` may take (the trigger activity's own timeout is a little longer). */
export const TRIGGER_HOOK_TIMEOUT_MS = 30_000;

export interface TriggerPluginCall {
  plugin: OperatorPlugin;
  request: TriggerLifecycleRequest;
  /** The trigger's config, templates resolved (secrets included). */
  config: Record<string, unknown>;
  secrets: Readonly<Record<string, string>>;
  egress: EgressPolicy;
  /** Aborted when Temporal cancels the activity. */
  signal: AbortSignal;
  log: PluginContext['log'];
}

export async function runTriggerPlugin(call: TriggerPluginCall): Promise<TriggerLifecycleResult> {
  const { plugin, request } = call;
  const hook = request.phase === 'activate' ? plugin.trigger?.activate : plugin.trigger?.deactivate;
  // A trigger without deactivate has nothing to undo.
  if (!hook) return {};
  const denials: EgressDenied[] = [];
  try {
    const returned = await withDeadline(call.signal, TRIGGER_HOOK_TIMEOUT_MS, async (deadline) => {
      const context: PluginTriggerContext = {
        config: call.config,
        secrets: Object.freeze({ ...call.secrets }),
        log: limitedLogger(call.log),
        signal: deadline,
        fetch: denialRecordingFetch(call.egress, deadline, denials),
        trigger: {
          organizationId: request.organizationId,
          workflowId: request.workflowId,
          aliasName: request.aliasName,
          revision: request.revision,
          triggerId: request.triggerId,
        },
        startUrl: request.startUrl,
        ...(request.phase === 'deactivate' && request.state !== undefined ? { state: structuredClone(request.state) } : {}),
      };
      return hook(context);
    });
    return request.phase === 'activate' ? checkedActivation(plugin, returned) : {};
  } catch (error) {
    throw pluginFailure(plugin, error, call.signal, TRIGGER_HOOK_TIMEOUT_MS, denials[0]);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What `activate` returned, refused (without retries) unless it is nothing or `{state?: object}` small enough to keep. */
function checkedActivation(plugin: OperatorPlugin, returned: unknown): TriggerLifecycleResult {
  const invalid = (problem: string) =>
    ApplicationFailure.nonRetryable(
      `trigger plugin "${plugin.descriptor.name}" returned ${problem} from activate`,
      'PLUGIN_RESULT_INVALID',
    );
  if (returned === undefined || returned === null) return {};
  if (!isRecord(returned) || Object.keys(returned).some((key) => key !== 'state')) throw invalid('something other than {state?}');
  const { state } = returned;
  if (state === undefined) return {};
  if (!isRecord(state)) throw invalid('a state that is not an object');
  const size = Buffer.byteLength(JSON.stringify(state));
  if (size > MAX_TRIGGER_STATE_BYTES) throw invalid(`a state of ${size} bytes (at most ${MAX_TRIGGER_STATE_BYTES})`);
  return { state };
}
