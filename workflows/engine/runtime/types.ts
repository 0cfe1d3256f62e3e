/**
 * The execution runtime's type vocabulary, in one import: what an execution receives (./input-types.ts),
 * what each step records and plugins return (./record-types.ts), waits, children and step events
 * (./wait-types.ts), and here the effects the Temporal workflow provides (activities, timers, signals,
 * children) with what running one step needs. Plain data only, so every value can cross Temporal's payload
 * boundary. Types only (and a few constants): every runtime module imports it, and it imports no runtime module
 * beyond those type files.
 */
import type { StepDefinition } from '../definition';
import type { Topology } from '../graph/topology';
import type { PluginDescriptor } from '../plugins/descriptor';
import type { Activation, Item } from '../graph/walker';
import type { DeferredTemplate, ResolvedInputs } from '../templates';
import type { RuntimeContext } from './input-types';
import type { LogEntryDraft, PluginResult, StepRecord } from './record-types';
import type { ChildRequest, ChildResult, StepEvent, WaitRequest, WaitResult } from './wait-types';

export type { Item };
export type { CarriedState, ContinuedRun, ExecutionInput, ReusedSteps, RuntimeContext, ScheduledStart, TriggerInfo } from './input-types';
export type { LogEntryDraft, PluginResult, StepAttempt, StepError, StepRecord, StepStatus } from './record-types';
export { PLUGIN_ATTEMPT_DETAIL, PLUGIN_LOGS_DETAIL } from './record-types';
export type { ChildRequest, ChildResult, StepEvent, WaitAnswer, WaitAnswerGiven, WaitRequest, WaitResult } from './wait-types';

/** The rules a run started now follows (ExecutionInput.engineRules): ../engine-rules. */
export { ENGINE_RULES } from '../engine-rules';

/** One effectful plugin call, executed by an activity. Templates that reference secrets are still unresolved. */
export interface ActivityCall {
  executionId: string;
  organizationId: string;
  workflowId: string;
  stepId: string;
  pluginType: string;
  /** For an operator plugin: the version the revision pinned (the worker refuses an incompatible one). */
  pluginVersion?: string;
  config: Record<string, unknown>;
  inputs: Record<string, unknown>;
  items: Item[];
  item?: Item;
  itemIndex?: number;
  /** Milliseconds for one attempt (the step's timeout). */
  timeoutMs?: number;
  /**
   * Run as a light step: a local activity inside the workflow task (see RunLimits.lightStepMaxTimeoutMs),
   * under this key (the step and its activation), which names the call the same way when it is run again.
   */
  light?: { callKey: string };
  /** A light call whose success ends the run: its activity writes the step's last records and the end (./last-step-end.ts). */
  endsRun?: LastStepEnd;
  /**
   * State the plugin left on its previous call: in this loop (paging position; absent on a fresh entry), or, for an
   * operator's `nodeState` plugin, anywhere in the execution (absent on its first).
   */
  nodeState?: Record<string, unknown>;
  retryPolicy?: TemporalRetryPolicy;
  /**
   * Set when the engine runs the step's retries itself (a policy with `jitter`): which attempt this call is, from 1.
   * The call then has no retry policy of its own; absent otherwise (the host counts its own attempts).
   */
  attempt?: number;
  /** Bytes the plugin's result may have as JSON (the run's maxStepOutputBytes): refused in the worker, before it reaches history. */
  maxOutputBytes?: number;
  /** A `forEach.reduce` iteration: the plugin also returns what it wrapped as `PluginResult.value`. */
  returnValue?: boolean;
  /**
   * Per script property (code-exec `code`, sent as written), the text of each of its templates in order:
   * the sandbox reads them as values, never as source. A template that reads a secret is empty here and
   * filled by the activity (`deferred`).
   */
  bound?: Record<string, string[]>;
  /** The definition's templates that read a secret, for the activity to evaluate and place (the only strings it parses). */
  deferred?: DeferredTemplate[];
  /** Non-secret roots (vars, steps…) that those templates also read. */
  scope?: Record<string, unknown>;
  /** The definition's `secrets:` bindings that rename: `secrets.NAME` reads the config entry named here (names only). */
  secretBindings?: Record<string, string>;
}

export interface TemporalRetryPolicy {
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs?: number;
}

/** What a call carries when its success ends the run (./last-step-end.ts): enough to settle the step as the workflow does. */
export interface LastStepEnd {
  /** The step's record as the call found it (running). */
  record: StepRecord;
  run: number;
  outputProjection?: string[];
  /** The run's log message limit in bytes (absent: none), as the workflow's log effect applies it. */
  maxLogMessageBytes?: number;
}

/** Everything the runtime needs from its host (the Temporal workflow, or a test). */
export interface RuntimeEffects {
  /** Current time in ms (workflow time under Temporal). */
  now(): number;
  /** A fresh random id (deterministic under Temporal). */
  uuid(): string;
  callActivity(call: ActivityCall): Promise<PluginResult>;
  sleep(ms: number): Promise<void>;
  waitForSignal(request: WaitRequest): Promise<WaitResult>;
  runChild(request: ChildRequest): Promise<ChildResult>;
  log(entry: LogEntryDraft): void;
  onEvent(event: StepEvent): void;
  /**
   * Plugins the host runs itself (the kit's stubs), by name: their steps go to
   * `callActivity` with this descriptor's execute mode, even where a built-in
   * inline plugin has the name. Under Temporal: the input's `hostPlugins` (absent on the server's runs).
   */
  hostPlugin?(pluginType: string): PluginDescriptor | undefined;
}

/** What running one step needs: the execution's state, its host's effects, and the graph. */
export interface StepEnv {
  ctx: RuntimeContext;
  effects: RuntimeEffects;
  topology: Topology;
  /** Whether one activation alone is in flight (the graph runner's count; absent: not known). */
  alone?: () => boolean;
}

/** What a step's expressions see besides the execution's state. */
export interface ScopeExtras {
  inputs?: Record<string, unknown>;
  items: Item[];
  item?: Item;
  itemIndex?: number;
  /** The wait step that released this step, when it follows one. */
  signal?: WaitResult & { name?: string };
}

/** One plugin call with its scope (the step runner's `callPlugin`, handed to the fan-out). */
export type PluginCall = (
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  extras: ScopeExtras & {
    extraVariables?: Record<string, unknown>;
    extraInputs?: ResolvedInputs;
    /** The activation's only call (no fan-out, forEach or loop element): it may run as a light step. */
    soleCall?: boolean;
    /** A `forEach.reduce` iteration: ask the plugin for `PluginResult.value`. */
    returnValue?: boolean;
    /** A `forEach` iteration: retried under the step's policy on its own (../engine-rules, `for-each-engine-retries`). */
    iteration?: boolean;
  },
) => Promise<PluginResult>;
