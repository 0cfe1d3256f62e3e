/**
 * `webhook-wait`: opens a one-time callback URL
 * (`<PUBLIC_BASE_URL>/workflows/webhooks/callback[/<urlPrefix>]/<executionId>/<token>`), lists
 * it with the pending waits, then parks the run until a request reaches that URL
 * or the timeout fires. The request (`body`, `headers`, `query`, `receivedAt`)
 * becomes the output, with the `waitUrl`.
 *
 * The workflow's random source is deterministic (replayable from history), so
 * the workflow only picks a nonce and reports the URL ending in it; the API
 * appends a MAC keyed by a server secret whenever it shows the URL, and checks
 * it when a request arrives (api/executions/callback-token.ts). The URL is
 * therefore not logged here: the full one exists only outside the workflow.
 *
 * On timeout: `onTimeout: error` (default) fails with `WEBHOOK_WAIT_TIMEOUT`;
 * `continue` leaves through the `timeout` port when it is wired, else `default`.
 */
import { parseDuration } from '../durations';
import { stringify } from '../evaluate';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, duration, onTimeout } from '../plugins/schema';
import { isPathSegment } from '../config-schema';
import { closedOutputs, field } from '../plugins/outputs';

/** The signal name a callback delivers for a wait's nonce. */
export const webhookSignalName = (nonce: string): string => `webhook:${nonce}`;

const webhookWait: InlineRun = async ({ step, config, ctx, effects, hasPortEdge }) => {
  const timeoutMs = config.timeout === undefined || config.timeout === null ? undefined : parseDuration(config.timeout);
  if (config.timeout !== undefined && config.timeout !== null && timeoutMs === undefined) {
    return failure('PLUGIN_CONFIG_INVALID', 'webhook-wait "timeout" is not a duration');
  }
  const prefix = config.urlPrefix === undefined || config.urlPrefix === null || config.urlPrefix === '' ? undefined : config.urlPrefix;
  if (prefix !== undefined && !(typeof prefix === 'string' && isPathSegment(prefix)))
    return failure(
      'PLUGIN_CONFIG_INVALID',
      'webhook-wait "urlPrefix" must be one readable path segment (letters, digits, ".", "_" or "-")',
    );
  const nonce = effects.uuid().replace(/-/g, '');
  // The prefix only makes the URL readable (…/callback/approvals/<execution>/<token>); the token is still the capability.
  const base = `${ctx.input.publicBaseUrl ?? ''}/workflows/webhooks/callback${prefix === undefined ? '' : `/${prefix}`}`;
  const unsignedUrl = `${base}/${ctx.input.executionId}/${nonce}`;
  effects.log({
    stepId: step.id,
    level: 'info',
    message: 'waiting for a request to the callback URL listed with the pending signals',
    timestamp: new Date(effects.now()).toISOString(),
  });

  const result = await effects.waitForSignal({
    stepId: step.id,
    signalNames: [webhookSignalName(nonce)],
    timeoutMs,
    callbackUrl: unsignedUrl,
  });
  if (!result.timedOut) {
    const request = (result.payload ?? {}) as Record<string, unknown>;
    // The callback route passes the (now spent) token along, so the output names the URL that was called.
    const token = typeof request.callbackToken === 'string' && request.callbackToken.startsWith(nonce) ? request.callbackToken : nonce;
    return {
      status: 'success',
      items: [
        {
          waitUrl: `${base}/${ctx.input.executionId}/${token}`,
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
  return {
    status: 'success',
    items: [{ waitUrl: unsignedUrl, timedOut: true }],
    activePorts: [hasPortEdge('timeout') ? 'timeout' : 'default'],
  };
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
    outputSchema: closedOutputs({
      waitUrl: field('string', 'the one-time callback URL'),
      body: field(undefined, 'the body of the request to it'),
      headers: field('object', 'its headers'),
      query: field('object', 'its query parameters'),
      receivedAt: field(['string', 'null'], 'when it arrived (ISO-8601)'),
      timedOut: field('boolean', 'true when the timeout fired (onTimeout: continue)'),
    }),
    configSchema: {
      properties: {
        timeout: duration(),
        onTimeout,
        urlPrefix: str('a readable path segment inserted before the execution id', { format: 'path-segment' }),
        correlationKey: str(),
      },
    },
  },
  run: webhookWait,
};
