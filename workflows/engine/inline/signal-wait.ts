/**
 * `signal-wait`: parks the run until a signal with one of the names arrives
 * (optionally matched by correlation key) or the timeout fires. Runs in the
 * workflow whatever the step's declared type. The payload becomes the step's
 * output; the next step reads it as `signal.payload`.
 *
 * On timeout: `onTimeout: error` (the default) fails with
 * `SIGNAL_WAIT_TIMEOUT`; `continue` leaves through the `timeout` port when it
 * is wired, else through `default`, with `timedOut: true`.
 */
import { stringify } from '../evaluate';
import { parseDuration } from '../durations';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, duration, onTimeout } from '../plugins/schema';

const signalWait: InlineRun = async ({ step, config, ctx, effects, hasPortEdge }) => {
  const names = (Array.isArray(config.signalName) ? config.signalName : [config.signalName]).map(stringify).filter((name) => name !== '');
  if (names.length === 0) return failure('PLUGIN_CONFIG_INVALID', 'signal-wait needs a "signalName"');
  // `timeoutMs` is the older spelling (a number of milliseconds); `timeout` wins when both are set.
  const timeout = config.timeout ?? config.timeoutMs;
  const timeoutMs = timeout === undefined || timeout === null ? undefined : parseDuration(timeout);
  if (timeout !== undefined && timeout !== null && timeoutMs === undefined) {
    return failure('PLUGIN_CONFIG_INVALID', 'signal-wait "timeout" is not a duration');
  }
  const correlationKey =
    config.correlationKey === undefined || config.correlationKey === null ? undefined : stringify(config.correlationKey);
  const result = await effects.waitForSignal({ stepId: step.id, signalNames: names, correlationKey, timeoutMs });
  ctx.signals[step.id] = result;

  if (!result.timedOut) {
    const outputs = {
      name: result.name ?? names[0],
      payload: result.payload ?? null,
      receivedAt: result.receivedAt ?? null,
      signalId: result.signalId ?? null,
    };
    return { status: 'success', items: [outputs] };
  }
  if (config.onTimeout !== 'continue') {
    return failure('SIGNAL_WAIT_TIMEOUT', `no signal ${names.map((n) => `"${n}"`).join(' or ')} arrived within ${stringify(timeout)}`);
  }
  const outputs = { name: null, payload: config.defaultValue ?? null, receivedAt: null, timedOut: true };
  return { status: 'success', items: [outputs], activePorts: [hasPortEdge('timeout') ? 'timeout' : 'default'] };
};

export const signalWaitPlugin: InlinePlugin = {
  descriptor: {
    name: 'signal-wait',
    kind: 'module',
    description: 'Parks the run until a signal arrives or the timeout fires.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default', 'timeout'],
    configSchema: {
      properties: {
        signalName: { type: ['string', 'array'], items: str() },
        correlationKey: str(),
        timeout: duration(),
        timeoutMs: duration('older spelling of timeout (milliseconds)'),
        onTimeout,
        defaultValue: { type: 'any' },
      },
      required: ['signalName'],
    },
  },
  run: signalWait,
};
