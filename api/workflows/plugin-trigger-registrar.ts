/**
 * The registrar of an operator's trigger plugin. Activation mints a webhook
 * token, as for a `webhook` trigger: its URL (`/workflows/webhooks/{token}`)
 * starts an execution of the alias's revision, and that URL is the one
 * capability the plugin is given. The plugin's `activate` (told the trigger's
 * config and that URL: it registers it where events come from) and, on
 * deactivation, its `deactivate` run in the worker, as activities of the
 * `runTriggerLifecycle` workflow, under the rules of every plugin call (egress
 * policy, secrets resolved there and redacted); this registrar waits for them.
 * What `activate` returns to keep (`state`) is stored with the binding
 * (runtime metadata `pluginState`), so any replica can deactivate.
 */
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import {
  TRIGGER_LIFECYCLE_WORKFLOW_TYPE,
  type PluginCatalog,
  type TriggerLifecycleRequest,
  type TriggerLifecycleResult,
} from '../../workflows/engine';
import { newWebhookToken } from './ids';
import { TriggerRegistrationError, type TriggerRegistrar, type TriggerRegistrars } from './registrars';

/** How long an activation waits for the worker to run the plugin (its own calls are bounded well within). */
const LIFECYCLE_TIMEOUT = '2 minutes';
/** The workflow's signature (workflows/trigger-lifecycle.ts), started by its type name. */
type TriggerLifecycleWorkflow = (request: TriggerLifecycleRequest) => Promise<TriggerLifecycleResult>;

/** Where the binding keeps what `activate` returned. */
export const PLUGIN_STATE_KEY = 'pluginState';

/** One registrar per trigger plugin in the operator's catalog. */
export function pluginTriggerRegistrars(
  client: Client,
  taskQueue: string,
  publicBaseUrl: string,
  plugins: PluginCatalog = {},
): TriggerRegistrars {
  return Object.fromEntries(
    Object.values(plugins)
      .filter((plugin) => plugin.kind === 'trigger')
      .map((plugin) => [plugin.name, pluginTriggerRegistrar(client, taskQueue, publicBaseUrl, plugin.name)]),
  );
}

export function pluginTriggerRegistrar(client: Client, taskQueue: string, publicBaseUrl: string, pluginType: string): TriggerRegistrar {
  const startUrl = (token: string) => `${publicBaseUrl}/workflows/webhooks/${token}`;
  const run = async (request: TriggerLifecycleRequest): Promise<TriggerLifecycleResult> => {
    const id = `trigger-${request.workflowId}.${request.aliasName}.${request.triggerId}.${request.phase}-${randomBytes(4).toString('hex')}`;
    try {
      return await client.workflow.execute<TriggerLifecycleWorkflow>(TRIGGER_LIFECYCLE_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: id,
        args: [request],
        workflowExecutionTimeout: LIFECYCLE_TIMEOUT,
        memo: {
          organizationId: request.organizationId,
          workflowId: request.workflowId,
          alias: request.aliasName,
          triggerId: request.triggerId,
        },
      });
    } catch (error) {
      throw registrationError(error, request);
    }
  };
  return {
    async register(context) {
      const token = newWebhookToken();
      const result = await run({
        phase: 'activate',
        organizationId: context.organizationId,
        workflowId: context.workflowId,
        aliasName: context.aliasName,
        revision: context.revision,
        triggerId: context.trigger.id,
        pluginType,
        startUrl: startUrl(token),
      });
      return { webhookToken: token, runtimeMetadata: result.state ? { [PLUGIN_STATE_KEY]: result.state } : {} };
    },
    async unregister(registration, binding) {
      // Without a token nothing was activated (a failed registration): nothing to undo.
      if (!registration.webhookToken) return;
      const state = registration.runtimeMetadata?.[PLUGIN_STATE_KEY];
      await run({
        phase: 'deactivate',
        ...binding,
        pluginType,
        startUrl: startUrl(registration.webhookToken),
        ...(state !== null && typeof state === 'object' && !Array.isArray(state) ? { state: state as Record<string, unknown> } : {}),
      });
    },
  };
}

/** The plugin's failure as the trigger's `lastError`: its own code and (scrubbed) message, or why it did not run. */
function registrationError(error: unknown, request: TriggerLifecycleRequest): TriggerRegistrationError {
  const what = `trigger plugin "${request.pluginType}" (${request.phase})`;
  if (error instanceof WorkflowFailedError) {
    // The activity's ApplicationFailure, under the ActivityFailure that carried it; a timeout has no such cause.
    let cause: unknown = error.cause;
    while (cause instanceof Error && cause.cause instanceof Error && !('type' in cause && typeof cause.type === 'string'))
      cause = cause.cause;
    const failure = cause as { type?: unknown; message?: unknown } | undefined;
    if (typeof failure?.type === 'string' && typeof failure.message === 'string')
      return new TriggerRegistrationError(failure.type, `${what}: ${failure.message}`);
    return new TriggerRegistrationError(
      'TRIGGER_PLUGIN_FAILED',
      `${what} did not finish within ${LIFECYCLE_TIMEOUT}: is a worker running?`,
    );
  }
  return new TriggerRegistrationError('TRIGGER_PLUGIN_FAILED', `${what} could not be run: ${(error as Error)?.message ?? String(error)}`);
}
