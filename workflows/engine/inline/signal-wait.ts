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
 *
 * An operator's two-phase wait parks the same way after its side effect
 * (`parkOnSignal`, from ../runtime/operator-kinds.ts), its output also
 * carrying what the side effect returned.
 */
import { stringify } from '../evaluate';
import { parseDuration } from '../durations';
import type { Item, PluginResult, RuntimeEffects } from '../runtime/types';
import { failure, type InlineCall, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, duration, onTimeout } from '../plugins/schema';
import { openOutputs, field } from '../plugins/outputs';
import type { WaitAnswer } from '../runtime/types';
import { ANSWER_CONFIG, declaredAnswer } from './declared-answer';

const signalWait: InlineRun = async ({ step, config, ctx, effects, hasPortEdge }) => {
  const names = (Array.isArray(config.signalName) ? config.signalName : [config.signalName]).map(stringify).filter((name) => name !== '');
  if (names.length === 0) return failure('PLUGIN_CONFIG_INVALID', 'signal-wait needs a "signalName"');
  const correlationKey =
    config.correlationKey === undefined || config.correlationKey === null ? undefined : stringify(config.correlationKey);
  const answer = declaredAnswer(config);
  if (answer !== undefined && 'problem' in answer) return failure('PLUGIN_CONFIG_INVALID', `signal-wait: ${answer.problem}`);
  return parkOnSignal({ plugin: 'signal-wait', stepId: step.id, names, correlationKey, config, answer }, { ctx, effects, hasPortEdge });
};

/** One wait: on these names (and correlation key), with the step's `timeout`, `onTimeout` and `defaultValue`. */
export interface Park {
  /** The plugin, as messages name it. */
  plugin: string;
  stepId: string;
  names: string[];
  correlationKey?: string;
  /** The step's config, for `timeout` (or the older `timeoutMs`), `onTimeout` and `defaultValue`. */
  config: Record<string, unknown>;
  /** What the output carries beside the wait's own keys (a two-phase wait's side effect: ../runtime/operator-kinds.ts). */
  base?: Item;
  /** Who may answer and what (./declared-answer.ts); the output then also carries `answers`. */
  answer?: WaitAnswer;
}

/** Parks the step until a signal releases it or its timeout fires, and gives its output (see the file comment). */
export async function parkOnSignal(
  park: Park,
  { ctx, effects, hasPortEdge }: Pick<InlineCall, 'ctx' | 'effects' | 'hasPortEdge'>,
): Promise<PluginResult> {
  const { config, names } = park;
  // `timeoutMs` is the older spelling (a number of milliseconds); `timeout` wins when both are set.
  const timeout = config.timeout ?? config.timeoutMs;
  const timeoutMs = timeout === undefined || timeout === null ? undefined : parseDuration(timeout);
  if (timeout !== undefined && timeout !== null && timeoutMs === undefined) {
    return failure('PLUGIN_CONFIG_INVALID', `${park.plugin} "timeout" is not a duration`);
  }
  const result = await effects.waitForSignal({
    stepId: park.stepId,
    signalNames: names,
    correlationKey: park.correlationKey,
    timeoutMs,
    ...(park.answer ? { answer: park.answer } : {}),
  });
  ctx.signals[park.stepId] = result;

  if (!result.timedOut) {
    const metadata = {
      name: result.name ?? names[0],
      payload: result.payload ?? null,
      receivedAt: result.receivedAt ?? null,
      signalId: result.signalId ?? null,
      timedOut: false,
      // Who answered and when (a declared-answer wait only: a plain wait's outputs are as they were).
      ...(park.answer ? { answers: result.answers ?? [] } : {}),
    };
    return { status: 'success', items: [waitOutputs(metadata, park, effects)] };
  }
  if (config.onTimeout !== 'continue') {
    return failure('SIGNAL_WAIT_TIMEOUT', `no signal ${names.map((n) => `"${n}"`).join(' or ')} arrived within ${stringify(timeout)}`);
  }
  const metadata = {
    name: null,
    payload: config.defaultValue ?? null,
    receivedAt: null,
    signalId: null,
    timedOut: true,
    ...(park.answer ? { answers: result.answers ?? [] } : {}),
  };
  return {
    status: 'success',
    items: [waitOutputs(metadata, park, effects)],
    activePorts: [hasPortEdge('timeout') ? 'timeout' : 'default'],
  };
}

/**
 * The step's output: the wait's metadata, then each key of `base` (a side effect's outputs) the metadata does not
 * use, then each key of a plain-object payload that neither uses. A payload key shadowed so is named in a warning
 * on the step's log, so the difference from the compatible engine (where `outputs.<key>` would be the payload's)
 * is never silent.
 */
function waitOutputs(metadata: Item & { payload: unknown }, park: Park, effects: RuntimeEffects): Item {
  const outputs: Item = { ...metadata };
  const { stepId, base } = park;
  for (const [key, value] of Object.entries(base ?? {})) if (!Object.hasOwn(metadata, key)) defineOwn(outputs, key, value);
  const { payload } = metadata;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return outputs;
  const shadowed: string[] = [];
  const taken: string[] = [];
  for (const [key, value] of Object.entries(payload as Record<string, unknown>)) {
    if (Object.hasOwn(metadata, key)) shadowed.push(key);
    else if (Object.hasOwn(outputs, key)) taken.push(key);
    // A payload is data: a `__proto__` key is an own key here, never the prototype.
    else defineOwn(outputs, key, value);
  }
  const warn = (message: string) => effects.log({ stepId, level: 'warn', message, timestamp: new Date(effects.now()).toISOString() });
  if (shadowed.length > 0) {
    warn(
      `the signal payload's ${shadowed.map((key) => `"${key}"`).join(', ')} ${shadowed.length === 1 ? 'is' : 'are'} not at ` +
        `steps.${stepId}.outputs.<key>, which holds the wait's own ${shadowed.join(', ')}: read ` +
        shadowed.map((key) => `steps.${stepId}.outputs.payload.${key}`).join(', '),
    );
  }
  if (taken.length > 0) {
    warn(
      `the signal payload's ${taken.map((key) => `"${key}"`).join(', ')} ${taken.length === 1 ? 'is' : 'are'} not at ` +
        `steps.${stepId}.outputs.<key>, which holds what the step's side effect returned: read ` +
        taken.map((key) => `steps.${stepId}.outputs.payload.${key}`).join(', '),
    );
  }
  return outputs;
}

function defineOwn(target: Item, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
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
    outputSchema: openOutputs("the wait's fields, then the keys of a plain-object payload (those the wait's own fields do not shadow)", {
      name: field(['string', 'null'], 'the signal name that arrived (null after a timeout)'),
      payload: field(undefined, 'the whole signal payload (defaultValue after a timeout)'),
      receivedAt: field(['string', 'null'], 'when the signal arrived (ISO-8601)'),
      signalId: field(['string', 'null'], 'the delivery id of the signal'),
      timedOut: field('boolean', 'true when the timeout fired (onTimeout: continue)'),
      answers: field('array', 'a declared-answer wait: who answered and when ({by, at, approved, signalId}), oldest first'),
    }),
    configSchema: {
      properties: {
        signalName: { type: ['string', 'array'], items: str() },
        correlationKey: str(),
        timeout: duration(),
        timeoutMs: duration('older spelling of timeout (milliseconds)'),
        onTimeout,
        defaultValue: { type: 'any' },
        ...ANSWER_CONFIG,
      },
      required: ['signalName'],
    },
  },
  run: signalWait,
};
