/**
 * The engine's host for a local run: the same `RuntimeEffects` seam the
 * Temporal workflow implements in workflows/execution-effects.ts, here
 * in-process. Plugin calls go to the plugin host (stubs or real effectful
 * plugins), timers to the run's clock, waits to the test's `signals`
 * answers, sub-workflows to nested local runs; logs and step events are kept
 * for the result and the command line's live view.
 */
import { randomUUID } from 'node:crypto';
import {
  createLimiter,
  runLimitsOf,
  truncateUtf8,
  type ActivityCall,
  type ChildRequest,
  type ChildResult,
  type ExecutionInput,
  type LogEntryDraft,
  type PluginDescriptor,
  type PluginResult,
  type RuntimeEffects,
  type StepEvent,
  type WaitAnswer,
  type WaitRequest,
  type WaitResult,
} from '../workflows/engine';
import type { Clock } from './clock';

/** What a test's `signals` function is asked: the wait a step opened. */
export interface SignalWait {
  stepId: string;
  /** The first of `signalNames`. */
  name: string;
  signalNames: string[];
  correlationKey?: string;
  timeoutMs?: number;
  /** A wait that declares its answer (approvers, form, …), as the run rendered it: the kit checks neither. */
  answer?: WaitAnswer;
}

/** `by`: who answers a declared-answer wait (its outputs' `answers`; default `kit`). The kit counts one answer as enough. */
export type SignalAnswer = { name?: string; payload?: unknown; by?: string } | 'timeout' | undefined | null;
export type SignalResponder = (wait: SignalWait) => SignalAnswer | Promise<SignalAnswer>;

export interface LocalEffectsOptions {
  input: ExecutionInput;
  clock: Clock;
  callPlugin(call: ActivityCall): Promise<PluginResult>;
  hostPlugin(pluginType: string): PluginDescriptor | undefined;
  signals?: SignalResponder;
  runChild(request: ChildRequest): Promise<ChildResult>;
  logs: LogEntryDraft[];
  onEvent?: (event: StepEvent) => void;
}

export function localEffects(options: LocalEffectsOptions): RuntimeEffects {
  const limits = runLimitsOf(options.input);
  const inFlight = createLimiter(limits.maxActivitiesInFlight);
  return {
    now: () => options.clock.now(),
    uuid: () => randomUUID(),
    callActivity: (call) => inFlight(() => options.callPlugin(call)),
    sleep: (ms) => options.clock.sleep(ms),
    waitForSignal: (request) => waitForSignal(options, request),
    runChild: (request) => options.runChild(request),
    log: (entry) => options.logs.push({ ...entry, message: truncateUtf8(entry.message, limits.maxLogMessageBytes) }),
    onEvent: (event) => options.onEvent?.(event),
    hostPlugin: (pluginType) => options.hostPlugin(pluginType),
  };
}

class SignalNotAnswered extends Error {
  readonly type = 'SIGNAL_NOT_ANSWERED';
}

/** A wait is answered by the test's `signals` function: a signal, `'timeout'`, or nothing (then its timeout fires, if it has one). */
async function waitForSignal(options: LocalEffectsOptions, request: WaitRequest): Promise<WaitResult> {
  const waitId = randomUUID();
  const at = () => new Date(options.clock.now()).toISOString();
  options.onEvent?.({
    type: 'wait.started',
    stepId: request.stepId,
    waitId,
    signalNames: request.signalNames,
    ...(request.correlationKey !== undefined ? { correlationKey: request.correlationKey } : {}),
    at: at(),
  });
  const wait: SignalWait = {
    stepId: request.stepId,
    name: request.signalNames[0],
    signalNames: [...request.signalNames],
    ...(request.correlationKey !== undefined ? { correlationKey: request.correlationKey } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    ...(request.answer ? { answer: request.answer } : {}),
  };
  const answer = options.signals ? await options.signals(wait) : undefined;
  let result: WaitResult;
  if (answer === 'timeout' || answer === undefined || answer === null) {
    if (request.timeoutMs === undefined)
      throw new SignalNotAnswered(
        `step "${request.stepId}" waits on signal "${wait.name}" without a timeout, and the run's signals option did not answer it`,
      );
    await options.clock.sleep(request.timeoutMs);
    result = { timedOut: true };
  } else {
    const signalId = `sig_${randomUUID().replace(/-/g, '')}`;
    const payload = answer.payload ?? null;
    const approved = !(typeof payload === 'object' && payload !== null && (payload as { approved?: unknown }).approved === false);
    result = {
      timedOut: false,
      name: answer.name ?? wait.name,
      payload,
      signalId,
      receivedAt: at(),
      ...(request.answer ? { answers: [{ by: answer.by ?? 'kit', at: at(), approved, signalId }] } : {}),
    };
  }
  options.onEvent?.({ type: 'wait.ended', stepId: request.stepId, waitId, at: at() });
  return result;
}
