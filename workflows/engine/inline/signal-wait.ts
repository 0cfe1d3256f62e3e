/**
 * `signal-wait`: parks the run until a signal with one of the names arrives
 * (optionally matched by correlation key) or the timeout fires. Runs in the
 * workflow whatever the step's declared type. The next step also reads the
 * payload as `signal.payload`.
 *
 * The output is the payload's own keys (when it is a plain object: the
 * compatible engine's `steps.w.outputs.approved`) together with the wait's
 * metadata `name`, `payload` (the whole payload), `receivedAt`, `signalId`
 * and `timedOut` (this project's `steps.w.outputs.payload.approved`). On a
 * collision the metadata wins, and the step logs a warning naming the
 * payload keys it shadows and where to read them (`outputs.payload.<key>`).
 *
 * On timeout: `onTimeout: error` (the default) fails with
 * `SIGNAL_WAIT_TIMEOUT`; `continue` leaves through the `timeout` port when it
 * is wired, else through `default`, with `timedOut: true` and `defaultValue`
 * standing for the payload.
 */
import { stringify } from '../evaluate';
import { parseDuration } from '../durations';
import type { Item, RuntimeEffects } from '../runtime/types';
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
    const metadata = {
      name: result.name ?? names[0],
      payload: result.payload ?? null,
      receivedAt: result.receivedAt ?? null,
      signalId: result.signalId ?? null,
      timedOut: false,
    };
    return { status: 'success', items: [waitOutputs(metadata, step.id, effects)] };
  }
  if (config.onTimeout !== 'continue') {
    return failure('SIGNAL_WAIT_TIMEOUT', `no signal ${names.map((n) => `"${n}"`).join(' or ')} arrived within ${stringify(timeout)}`);
  }
  const metadata = { name: null, payload: config.defaultValue ?? null, receivedAt: null, signalId: null, timedOut: true };
  return {
    status: 'success',
    items: [waitOutputs(metadata, step.id, effects)],
    activePorts: [hasPortEdge('timeout') ? 'timeout' : 'default'],
  };
};

/**
 * The step's output: the wait's metadata, then each key of a plain-object payload that the metadata does
 * not use. A payload key the metadata shadows is named in a warning on the step's log, so the difference
 * from the compatible engine (where `outputs.<key>` would be the payload's) is never silent.
 */
function waitOutputs(metadata: Item & { payload: unknown }, stepId: string, effects: RuntimeEffects): Item {
  const outputs: Item = { ...metadata };
  const { payload } = metadata;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return outputs;
  const shadowed: string[] = [];
  for (const [key, value] of Object.entries(payload as Record<string, unknown>)) {
    if (Object.hasOwn(metadata, key)) shadowed.push(key);
    // A payload is data: a `__proto__` key is an own key here, never the prototype.
    else Object.defineProperty(outputs, key, { value, enumerable: true, writable: true, configurable: true });
  }
  if (shadowed.length > 0) {
    effects.log({
      stepId,
      level: 'warn',
      message:
        `the signal payload's ${shadowed.map((key) => `"${key}"`).join(', ')} ${shadowed.length === 1 ? 'is' : 'are'} not at ` +
        `steps.${stepId}.outputs.<key>, which holds the wait's own ${shadowed.join(', ')}: read ` +
        shadowed.map((key) => `steps.${stepId}.outputs.payload.${key}`).join(', '),
      timestamp: new Date(effects.now()).toISOString(),
    });
  }
  return outputs;
}

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
