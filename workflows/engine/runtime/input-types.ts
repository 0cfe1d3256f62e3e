/**
 * What an execution receives (its input, the trigger that fired it, what a retry or a continued run takes
 * over, what a cron schedule starts) and the mutable state it keeps while it runs. Plain data, carried across
 * continue-as-new and Temporal's payload boundary. Types only; part of the runtime's type vocabulary (./types.ts).
 */
import type { WorkflowDefinition } from '../definition';
import type { PluginDescriptor } from '../plugins/descriptor';
import type { Activation, WalkerState } from '../graph/walker';
import type { RunLimits } from '../limits';
import type { StepRecord } from './record-types';
import type { WaitResult } from './wait-types';

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
