/**
 * `webhook-wait`: mints a one-time callback URL
 * (`<PUBLIC_BASE_URL>/workflows/webhooks/callback/<executionId>/<token>`), logs
 * it and lists it with the pending waits, then parks the run until a request
 * reaches that URL or the timeout fires. The request (`body`, `headers`,
 * `query`, `receivedAt`) becomes the output, with the `waitUrl`.
 *
 * On timeout: `onTimeout: error` (default) fails with `WEBHOOK_WAIT_TIMEOUT`;
 * `continue` leaves through the `timeout` port when it is wired, else `default`.
 */
import { parseDuration } from '../durations';
import { stringify } from '../evaluate';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, duration, onTimeout } from '../plugins/schema';

/** The signal name a callback delivers for a token. */
export const webhookSignalName = (token: string): string => `webhook:${token}`;

const webhookWait: InlineRun = async ({ step, config, ctx, effects, hasPortEdge }) => {
  const timeoutMs = config.timeout === undefined || config.timeout === null ? undefined : parseDuration(config.timeout);
  if (config.timeout !== undefined && config.timeout !== null && timeoutMs === undefined) {
    return failure('PLUGIN_CONFIG_INVALID', 'webhook-wait "timeout" is not a duration');
  }
  const token = effects.uuid().replace(/-/g, '');
  const base =
    typeof config.urlPrefix === 'string' && config.urlPrefix !== ''
      ? config.urlPrefix.replace(/\/+$/, '')
      : `${ctx.input.publicBaseUrl ?? ''}/workflows/webhooks/callback`;
  const waitUrl = `${base}/${ctx.input.executionId}/${token}`;
  effects.log({
    stepId: step.id,
    level: 'info',
    message: `waiting for a request to ${waitUrl}`,
    timestamp: new Date(effects.now()).toISOString(),
  });

  const result = await effects.waitForSignal({ stepId: step.id, signalNames: [webhookSignalName(token)], timeoutMs, callbackUrl: waitUrl });
  if (!result.timedOut) {
    const request = (result.payload ?? {}) as Record<string, unknown>;
    return {
      status: 'success',
      items: [
        {
          waitUrl,
          body: request.body ?? null,
          headers: request.headers ?? {},
          query: request.query ?? {},
          receivedAt: result.receivedAt ?? null,
        },
      ],
    };
  }
  if (config.onTimeout !== 'continue')
    return failure('WEBHOOK_WAIT_TIMEOUT', `no request reached the callback URL within ${stringify(config.timeout)}`);
  return { status: 'success', items: [{ waitUrl, timedOut: true }], activePorts: [hasPortEdge('timeout') ? 'timeout' : 'default'] };
};

export const webhookWaitPlugin: InlinePlugin = {
  descriptor: {
    name: 'webhook-wait',
    kind: 'module',
    description: 'Issues a one-time callback URL, then waits for a request to it.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default', 'timeout'],
    configSchema: { properties: { timeout: duration(), onTimeout, urlPrefix: str(), correlationKey: str() } },
  },
  run: webhookWait,
};
