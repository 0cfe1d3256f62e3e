/**
 * What the worker's `callPlugin` activity does, in-process: a step call the
 * engine hands to its host (an effectful plugin, or any stubbed plugin) gets
 * its secret templates resolved from the run's `secrets`, runs the stub or
 * the real implementation from activities/plugins (egress policy included),
 * has every secret scrubbed from what comes back, and is retried under the
 * step's retry policy with the run's clock (back-off takes no wall time on
 * the instant clock).
 */
import {
  ExpressionError,
  PLUGIN_LOGS_DETAIL,
  RUN_LIMIT_SETTINGS,
  applyDeferred,
  deferredSecretNames,
  type ActivityCall,
  type CallValues,
  type PluginDescriptor,
  type PluginResult,
  type StepDefinition,
} from '../workflows/engine';
import { DEFAULT_EGRESS, type EgressPolicy } from '../activities/egress/policy';
import { Scrubber } from '../activities/secrets/scrubber';
import type { Clock } from './clock';
import type { ResolvedStub, StubContext, StubResult } from './stubs';

/** Types Temporal would not retry (the worker's activity options say the same). */
const NON_RETRYABLE_TYPES = new Set(['PLUGIN_CONFIG_INVALID', 'SECRET_UNRESOLVED', 'CONFIG_ENTRY_UNRESOLVED', 'PLUGIN_NOT_AVAILABLE']);

export interface PluginHostOptions {
  stubs: Map<string, ResolvedStub>;
  secrets: Record<string, string>;
  missingConfig: 'error' | 'undefined';
  clock: Clock;
  egress?: EgressPolicy;
  /** Ceiling on paginated-fetch pages (the server's WORKFLOW_MAX_PAGES); unset: the plugin's own default. */
  maxPages?: number;
  /** The step definition and run variables a stub sees. */
  stepOf(stepId: string): StepDefinition;
  variables(): Record<string, unknown>;
}

/** A failure as the engine reads a failed activity: the cause carries type, message and the plugin's log lines. */
export class StepCallFailure extends Error {
  override readonly cause: { type: string; message: string; nonRetryable: boolean; details: unknown[] };

  constructor(type: string, message: string, nonRetryable: boolean, logs: PluginResult['logs'] = []) {
    super(message);
    this.name = 'StepCallFailure';
    this.cause = { type, message, nonRetryable, details: [{ [PLUGIN_LOGS_DETAIL]: logs }] };
  }
}

export function createPluginHost(options: PluginHostOptions): (call: ActivityCall) => Promise<PluginResult> {
  return async (call) => {
    const policy = call.retryPolicy ?? { maximumAttempts: 1, initialIntervalMs: 1000, backoffCoefficient: 2 };
    // The engine numbers the attempts it runs itself (a policy with jitter); the host's own count on from there.
    const first = call.attempt ?? 1;
    for (let attempt = 1; ; attempt += 1) {
      let outcome: { result: PluginResult } | { failure: StepCallFailure };
      try {
        outcome = { result: await callOnce(options, call, first + attempt - 1) };
      } catch (error) {
        outcome = { failure: error as StepCallFailure };
      }
      const retryable =
        'failure' in outcome
          ? !outcome.failure.cause.nonRetryable
          : outcome.result.status === 'failure' && outcome.result.error?.retryable === true;
      if (!retryable || attempt >= policy.maximumAttempts) {
        if ('failure' in outcome) throw outcome.failure;
        return outcome.result;
      }
      const backoff = policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1);
      await options.clock.sleep(Math.min(backoff, policy.maximumIntervalMs ?? policy.initialIntervalMs * 100));
    }
  };
}

/** One attempt of a call (a Temporal worker's activity retries by itself: kit/temporal/activities.ts). */
export async function callOnce(options: PluginHostOptions, call: ActivityCall, attempt: number): Promise<PluginResult> {
  const deferred = call.deferred ?? [];
  const names = deferredSecretNames(deferred);
  const missing = names.filter((name) => !Object.hasOwn(options.secrets, name));
  if (missing.length > 0 && options.missingConfig === 'error')
    throw new StepCallFailure('CONFIG_ENTRY_UNRESOLVED', `secret ${missing.join(', ')} has no value for this workflow`, true);
  const secrets = Object.fromEntries(
    names.filter((name) => Object.hasOwn(options.secrets, name)).map((name) => [name, options.secrets[name]]),
  );
  const scrubber = new Scrubber(Object.values(secrets));
  const lines: NonNullable<PluginResult['logs']> = [];
  try {
    const resolved = applyDeferred(call, deferred, { ...call.scope, secrets });
    const stub = options.stubs.get(call.pluginType);
    const result = stub?.handler
      ? await callStub(options, stub, call, resolved, attempt)
      : await callRealPlugin(options, call, resolved, (level, message) => lines.push({ level, message }));
    checkOutputSize(result, call.maxOutputBytes);
    return scrubber.value({ ...result, logs: lines });
  } catch (error) {
    throw toFailure(error, scrubber, scrubber.value(lines));
  }
}

async function callStub(
  options: PluginHostOptions,
  stub: ResolvedStub,
  call: ActivityCall,
  resolved: { config: Record<string, unknown>; inputs: Record<string, unknown> },
  attempt: number,
): Promise<PluginResult> {
  // Fresh copies: a handler that mutates what it got cannot change the run's state or a later call.
  const step = options.stepOf(call.stepId);
  const context: StubContext = structuredClone({
    id: call.stepId,
    type: step.type,
    pluginType: call.pluginType,
    stepId: call.stepId,
    step,
    inputs: resolved.inputs,
    config: resolved.config,
    items: call.items,
    item: call.item,
    itemIndex: call.itemIndex,
    variables: options.variables(),
    attempt,
    executionId: call.executionId,
    workflowId: call.workflowId,
    ...(stub.descriptor.nodeState === true && call.nodeState !== undefined ? { state: call.nodeState } : {}),
  });
  // One object as both arguments: `(ctx) => …` and the compatible engine's `(step, ctx) => …` read the same call.
  const returned = await stub.handler!(context, context);
  return toPluginResult(call.stepId, returned, stub.descriptor);
}

/** The statuses that make a returned object a result rather than the outputs. */
const STATUSES = new Set<unknown>(['success', 'failure', 'skipped']);

/** What a handler returned, read as `StubReturn` says (kit/stubs.ts). */
function toPluginResult(stepId: string, returned: unknown, descriptor: PluginDescriptor): PluginResult {
  if (returned === undefined || returned === null) return { status: 'success', outputs: {} };
  const invalid = (what: string) => new StepCallFailure('STUB_INVALID_RESULT', `the stub of step "${stepId}" returned ${what}`, true);
  if (typeof returned !== 'object' || Array.isArray(returned))
    throw invalid(`${Array.isArray(returned) ? 'an array' : typeof returned}; return an object`);
  const value = returned as StubResult;
  // A stub of a kind reads what its kind returns without `status`: a decider's `{ activePorts, outputs? }`.
  if (value.status === undefined && isKindResult(value, descriptor))
    return toPluginResult(stepId, { ...value, status: 'success' }, descriptor);
  if (!STATUSES.has(value.status)) {
    // `{ outputs: {…} }` and nothing else: the compatible engine's result shape, not outputs named `outputs`.
    if (isOutputsOnly(value)) return { status: 'success', outputs: structuredClone(value.outputs) };
    // Any other object (`{ status: 200, body }` too) is the outputs.
    return { status: 'success', outputs: structuredClone(returned as Record<string, unknown>) };
  }
  const result: PluginResult = { status: value.status };
  if (value.outputs !== undefined) result.outputs = structuredClone(value.outputs);
  if (value.items !== undefined) result.items = structuredClone(value.items);
  if (value.activePorts !== undefined) result.activePorts = [...value.activePorts];
  // Checked by the engine before it waits (workflows/engine/runtime/operator-kinds.ts), as on the server.
  if (value.wait !== undefined && descriptor.twoPhaseWait === true) result.wait = structuredClone(value.wait);
  if (value.state !== undefined && descriptor.nodeState === true) result.nodeState = structuredClone(value.state);
  // `metadata` is accepted and not kept: no expression reads it, and the engine's own (per-item ports) must not be forged.
  if (value.status === 'failure') {
    result.error = {
      message: value.error?.message ?? `step "${stepId}" failed`,
      code: value.error?.code ?? 'STEP_FAILED',
      retryable: value.error?.retryable === true,
    };
  }
  return result;
}

async function callRealPlugin(
  options: PluginHostOptions,
  call: ActivityCall,
  resolved: CallValues,
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void,
): Promise<PluginResult> {
  // Loaded on first use: the code-exec pool and HTTP client cost nothing to runs that stub them.
  const { effectfulPluginFor } = await import('../activities/plugins/registry.js');
  const plugin = effectfulPluginFor(call.pluginType);
  if (!plugin)
    throw new StepCallFailure(
      'PLUGIN_NOT_AVAILABLE',
      `plugin "${call.pluginType}" cannot run locally (step "${call.stepId}"): stub it with stubs: { '${call.pluginType}': handler }`,
      true,
    );
  const abort = new AbortController();
  return plugin({
    call,
    config: resolved.config,
    inputs: resolved.inputs,
    bound: resolved.bound,
    signal: abort.signal,
    egress: options.egress ?? DEFAULT_EGRESS,
    maxPages: options.maxPages,
    log,
  });
}

/**
 * An object without `status` that is what a stub of its kind returns: a decider's `activePorts`, a two-phase
 * wait's `wait`, a stateful stub's `state` (each with `outputs`; a stateful one also with `items` and its `wait`).
 */
function isKindResult(value: object, descriptor: PluginDescriptor): boolean {
  const own = [
    ...(descriptor.kind === 'decider' ? ['activePorts'] : []),
    ...(descriptor.twoPhaseWait === true ? ['wait'] : []),
    ...(descriptor.nodeState === true ? ['state', 'items'] : []),
  ];
  const keys = Object.keys(value);
  return keys.some((key) => own.includes(key) && key !== 'items') && keys.every((key) => key === 'outputs' || own.includes(key));
}

function isOutputsOnly(value: object): value is { outputs: Record<string, unknown> } {
  const outputs = (value as { outputs?: unknown }).outputs;
  return Object.keys(value).length === 1 && outputs !== null && typeof outputs === 'object' && !Array.isArray(outputs);
}

function checkOutputSize(result: PluginResult, maxBytes: number | undefined): void {
  if (maxBytes === undefined) return;
  const size = Buffer.byteLength(JSON.stringify(result.items ?? result.outputs ?? null));
  if (size > maxBytes)
    throw new StepCallFailure(
      'STEP_OUTPUT_TOO_LARGE',
      `the step produced ${size} bytes of output; at most ${maxBytes} are allowed (${RUN_LIMIT_SETTINGS.maxStepOutputBytes})`,
      true,
    );
}

/** The server's denial names the operator's setting; a local run has its own ways to open a range. */
const OPERATOR_OPENS = 'operators open it with EGRESS_ALLOW_CIDRS';
const LOCAL_RUN_OPENS =
  'a local run opens it with platform-workflow run --allow-egress CIDR (or --allow-loopback, or EGRESS_ALLOW_CIDRS), runWorkflow with egress: { allowCidrs }';

/** Any error as the worker reports it: type and retryability kept (Temporal's ApplicationFailure is read by shape), secrets scrubbed. */
function toFailure(error: unknown, scrubber: Scrubber, logs: NonNullable<PluginResult['logs']>): StepCallFailure {
  if (error instanceof StepCallFailure)
    return new StepCallFailure(error.cause.type, scrubber.text(error.message), error.cause.nonRetryable, logs);
  if (error instanceof ExpressionError) return new StepCallFailure(error.code, scrubber.text(error.message), true, logs);
  const failure = error as { message?: unknown; type?: unknown; code?: unknown; nonRetryable?: unknown; retryable?: unknown };
  const type = typeof failure?.type === 'string' ? failure.type : typeof failure?.code === 'string' ? failure.code : 'PLUGIN_ERROR';
  const message = (error instanceof Error ? error.message : String(failure?.message ?? error)).replace(OPERATOR_OPENS, LOCAL_RUN_OPENS);
  const nonRetryable = failure?.nonRetryable === true || failure?.retryable === false || NON_RETRYABLE_TYPES.has(type);
  return new StepCallFailure(type, scrubber.text(message), nonRetryable, logs);
}
