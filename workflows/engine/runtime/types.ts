/**
 * Shapes shared by the execution runtime: what an execution receives, what
 * each step records, what plugins return, and the effects the Temporal
 * workflow provides (activities, timers, signals, children). Plain data only,
 * so every value can cross Temporal's payload boundary. Types only (and one
 * constant): every runtime module imports it, and it imports no runtime module.
 */
import type { StepDefinition, WorkflowDefinition } from '../definition';
import type { Topology } from '../graph/topology';
import type { PluginDescriptor } from '../plugins/descriptor';
import type { Activation, Item, WalkerState } from '../graph/walker';
import type { RunLimits } from '../limits';
import type { DeferredTemplate, ResolvedInputs } from '../templates';

export type { Item };

export interface TriggerInfo {
  /** Trigger step that fired; undefined for a plain API start without a manual trigger step. */
  stepId?: string;
  source: 'manual' | 'cron' | 'webhook' | 'sub-workflow' | 'signal' | 'on-error';
  payload: Record<string, unknown>;
  receivedAt: string;
  /** The output port the fired trigger step activates (default `default`; the kit sets it for triggers with several ports). */
  port?: string;
  /** Signal-with-start: the signal this run was started for; its first matching wait receives it. */
  signal?: { name: string; signalId: string; correlationKey?: string; payload: unknown };
}

export interface ExecutionInput {
  executionId: string;
  organizationId: string;
  workflowId: string;
  workflowKey?: string;
  revision: number;
  alias?: string;
  definition: WorkflowDefinition;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  correlationKey?: string;
  idempotencyKey?: string;
  parentExecutionId?: string;
  /** Base URL of the API (callback URLs of webhook waits are built from it). */
  publicBaseUrl?: string;
  /** Set on a run that continued as new: the walk to resume. */
  continued?: ContinuedRun;
  /** Continue as new once the history holds this many events (default 10,000; tests set it low). */
  historyEventLimit?: number;
  /** What this run may do (the service's configuration; a child inherits its parent's). */
  limits?: RunLimits;
  /** Sub-workflow nesting: 0 for a run started otherwise, the parent's + 1 for a child. */
  depth?: number;
  /** A child's root: the execution started otherwise whose tree it belongs to (the tree budget is counted on its row). Absent on a root. */
  rootExecutionId?: string;
  /**
   * The rules of the execution workflow the run started under, so its history replays and its steps compute as
   * they ran (a field of the input costs nothing, where a Temporal patch adds a marker and a search attribute write
   * to every run). Absent: rules 1. Read only through ../engine-rules (`followsRule`), which names each rule.
   */
  engineRules?: number;
  /**
   * A retry of a failed execution (POST /workflows/executions/{id}/retry): the steps that completed in it, whose
   * recorded outputs this run reuses instead of running them again (./reuse.ts).
   */
  reuse?: ReusedSteps;
  /**
   * Plugins the run's host runs itself, by name (the kit's stubs, when it runs a test on a Temporal worker:
   * kit/temporal/): their steps are activity calls with this descriptor, as `RuntimeEffects.hostPlugin` says.
   * Never set by the API.
   */
  hostPlugins?: Record<string, PluginDescriptor>;
}

/** What a retry takes over from the failed execution it retries (plain data, built by executions/retry-seed.ts). */
export interface ReusedSteps {
  /** The failed execution. */
  from: string;
  /** The latest record of each step that completed there (whole records, never capped). */
  steps: Record<string, StepRecord>;
}

/** The rules a run started now follows (ExecutionInput.engineRules): ../engine-rules. */
export { ENGINE_RULES } from '../engine-rules';

/** What a continued-as-new run inherits from the previous one. */
export interface ContinuedRun {
  state: CarriedState;
  vars: Record<string, unknown>;
  logSeq: number;
  stepSeqs: Record<string, number>;
  eventSeq: number;
}

/** The walk's whole state at a quiet point (nothing in flight), plus the steps that were about to start. */
export interface CarriedState {
  context: Omit<RuntimeContext, 'input'>;
  walker: WalkerState;
  pending: Activation[];
}

/**
 * The mutable state of one execution inside the workflow: step records,
 * run variables, per-step node context (split-in-batches), and the values of
 * `vars.*` resolved at start. Plain data: it is carried across
 * continue-as-new and answered by the state query.
 */
export interface RuntimeContext {
  input: ExecutionInput;
  /** `vars.*` values resolved when the execution started (never secrets). */
  vars: Record<string, unknown>;
  /** Run variables (`variables.*`), seeded from `initialValue`. */
  variables: Record<string, unknown>;
  steps: Record<string, StepRecord>;
  /** Per-step state that lives for the whole execution. */
  nodeContext: Record<string, Record<string, unknown>>;
  /** Last signal a wait step received, keyed by the wait step id. */
  signals: Record<string, WaitResult>;
  /** Sub-workflows this execution has started (bounded by its limits; carried across continue-as-new). */
  childrenStarted?: number;
  startedAt: string;
}

/**
 * What a cron trigger's Temporal Schedule starts: just enough to find the
 * revision. The workflow turns it into an ExecutionInput through an activity
 * (the definition is read when the tick fires, not stored in the schedule).
 */
export interface ScheduledStart {
  organizationId: string;
  workflowId: string;
  alias: string;
  revision: number;
  trigger: { id: string; pluginType: 'cron'; schedule: unknown };
}

export interface StepError {
  message: string;
  code: string;
  retryable?: boolean;
  /** What the step attached to its failure (the `fail` plugin's `metadata`). */
  details?: Record<string, unknown>;
}

export type StepStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';

export interface StepRecord {
  stepId: string;
  status: StepStatus;
  /** Run number of the latest run (steps in loops run several times). */
  run: number;
  items: Item[];
  /** `items[0] ?? {}`. */
  outputs: Item;
  activePorts: string[];
  inputs?: Record<string, unknown>;
  error?: StepError;
  startedAt?: string;
  completedAt?: string;
  metadata?: { fanOut?: { done: number; total: number; failed: number } } & Record<string, unknown>;
  /** Set on a step a retry did not run: its record is the one of the execution named here (ExecutionInput.reuse). */
  reusedFrom?: string;
  /**
   * The plugin config of this run's (first) call as resolved, every template that reads a secret shown
   * masked (`<redacted>`, the templates' SECRET_MASK): never a secret value. A marker when over its cap (./attempts.ts).
   */
  config?: Record<string, unknown>;
  /** The attempts of this run's plugin calls, when there was more than one (./attempts.ts). */
  attempts?: StepAttempt[];
  /** Attempts not listed in `attempts`, past its cap (./attempts.ts RECORDED_ATTEMPTS_MAX). */
  attemptsOmitted?: number;
}

/**
 * One attempt of a step's plugin call. Attempts the engine ran (a jitter policy, an inline plugin's retries)
 * carry their times and error; earlier attempts Temporal retried by itself are known by number only.
 */
export interface StepAttempt {
  attempt: number;
  status: 'completed' | 'failed';
  /** The call's item, in a fan-out (several calls per run). */
  itemIndex?: number;
  error?: StepError;
  startedAt?: string;
  completedAt?: string;
}

/** What a plugin call returns (inline or activity). `items` wins over `outputs`. */
export interface PluginResult {
  status: 'success' | 'failure' | 'skipped';
  items?: Item[];
  outputs?: Item;
  /** Ports to activate; default `['default']`. Items go to every active port. */
  activePorts?: string[];
  error?: StepError;
  metadata?: Record<string, unknown>;
  /** State to hand to this step's next call (on loop re-entry; every call for an operator's `nodeState` plugin); null clears it. */
  nodeState?: Record<string, unknown> | null;
  /**
   * What an operator's two-phase wait set up with its side effect: the signal the step now waits on, in the
   * workflow. The plugin's data: checked before use (./operator-kinds.ts), never evaluated.
   */
  wait?: { signalName: string | string[]; correlationKey?: string };
  /** The host's attempt that produced this result, when it retried the call itself (Temporal's attempt number). */
  attempt?: number;
  /** Log lines an activity plugin emitted (already scrubbed, metadata included); the workflow records them in order. */
  logs?: Array<{ level: 'debug' | 'info' | 'warn' | 'error'; message: string; metadata?: Record<string, unknown> }>;
  /**
   * What the plugin returned, when its `outputs` or `items` wrap it (a code-exec script's number, string,
   * boolean or array), and only when the call asked (`ActivityCall.returnValue`): a `forEach.reduce`
   * iteration's value, which the accumulator receives as is.
   */
  value?: unknown;
}

/** Key of the failure detail in which a failed activity plugin returns its log lines. */
export const PLUGIN_LOGS_DETAIL = 'pluginLogs';
/** Key, in that same detail, of the host's attempt number that failed (Temporal's attempt). */
export const PLUGIN_ATTEMPT_DETAIL = 'attempt';

export interface LogEntryDraft {
  stepId: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  metadata?: Record<string, unknown>;
  timestamp: string;
}

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

export interface WaitRequest {
  stepId: string;
  /** Names that release the wait. */
  signalNames: string[];
  correlationKey?: string;
  timeoutMs?: number;
  /** For webhook waits: the one-time URL that releases the wait (shown with the pending waits). */
  callbackUrl?: string;
  /** A wait that says who may answer and what (../inline/declared-answer.ts); absent: any signal of its names releases it. */
  answer?: WaitAnswer;
}

/** A wait's declared answer, rendered from the run: the API enforces it (approvers, form); the workflow counts approvals. */
export interface WaitAnswer {
  title?: string;
  description?: string;
  /** A JSON Schema for the payload (compiled at publish by the API). */
  form?: Record<string, unknown>;
  /** Absent: whoever may signal the run may answer (as a plain wait). */
  approvers?: { roles: string[]; users: string[]; nrn?: string };
  excludeStarter: boolean;
  /** Distinct approvals before the wait is released; any `approved: false` releases it at once. */
  required: number;
  /** An outbound call when the wait opens (through the egress rules), sent once. */
  notify?: { url: string; headers?: Record<string, string> };
}

/** One answer to a declared-answer wait, as the step's outputs and the timeline show it. */
export interface WaitAnswerGiven {
  /** The user id of who answered. */
  by: string;
  at: string;
  approved: boolean;
  signalId: string;
}

export interface WaitResult {
  timedOut: boolean;
  name?: string;
  payload?: unknown;
  signalId?: string;
  receivedAt?: string;
  /** A declared-answer wait: every answer counted, oldest first. */
  answers?: WaitAnswerGiven[];
}

export interface ChildRequest {
  stepId: string;
  itemIndex: number;
  workflowId: string;
  alias?: string;
  revision?: number;
  inputs: Record<string, unknown>;
  waitForCompletion: boolean;
  correlationKey?: string;
}

export interface ChildResult {
  executionId: string;
  outputs: Record<string, unknown>;
}

export type StepEvent =
  | { type: 'step.started'; stepId: string; run: number; at: string }
  | { type: 'step.completed'; stepId: string; run: number; at: string; record: StepRecord }
  | { type: 'step.failed'; stepId: string; run: number; at: string; record: StepRecord }
  /** `run` (and `startedAt`): a step that started and was skipped by its `condition`; absent: skipped without starting (a dead path). */
  | { type: 'step.skipped'; stepId: string; at: string; run?: number; startedAt?: string }
  /** Open waits are persisted so a signal by correlation key can find its execution without asking every running workflow. */
  | {
      type: 'wait.started';
      stepId: string;
      waitId: string;
      signalNames: string[];
      correlationKey?: string;
      at: string;
      timeoutAt?: string;
      /** A webhook wait's callback URL, unsigned (the API signs it when it shows the wait). */
      callbackUrl?: string;
      /** A declared-answer wait: who may answer and what (the API's approval gate and inbox read it). */
      answer?: WaitAnswer;
    }
  /** One answer counted by a declared-answer wait (the timeline's "who answered, and when"). */
  | ({ type: 'wait.answered'; stepId: string; waitId: string } & WaitAnswerGiven)
  | { type: 'wait.ended'; stepId: string; waitId: string; at: string };

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
