/**
 * `runWorkflow`: one execution in-process, without Temporal or a database,
 * walked by the engine's own runtime (`startExecution`, as the worker's
 * workflow calls it) with a local host for its effects (./local-effects).
 */
import { randomUUID } from 'node:crypto';
import {
  checkInputs,
  ENGINE_RULES,
  RUN_LIMIT_SETTINGS,
  runLimitsFrom,
  startExecution,
  validateDefinition as validateWithEngine,
  type RunLimits,
  type ExecutionInput,
  type LogEntryDraft,
  type StepEvent,
  type StepRecord,
  type TriggerInfo,
  type WorkflowDefinition,
} from '../workflows/engine';
import { DEFAULT_EGRESS, type EgressPolicy } from '../activities/egress/policy';
import { DEFAULT_LIMITS } from '../config/limits';
import { childResolver, requireValid, type WorkflowSource } from './children';
import { createClock, type Clock, type ClockMode } from './clock';
import { DefinitionInvalid, InputsInvalid, WorkflowRunFailed, type RunFailureInfo } from './errors';
import { loadDefinition } from './load';
import { localEffects, type SignalResponder } from './local-effects';
import { createPluginHost, StepCallFailure } from './plugin-host';
import { resolveStubs, type ResolvedStub, type Stubs } from './stubs';

export interface RunOptions {
  /** The definition (document or normalized), or `file`: a YAML or JSON file. */
  definition?: WorkflowDefinition | Record<string, unknown>;
  file?: string;
  inputs?: Record<string, unknown>;
  /** The trigger step to fire: default the first `manual` trigger, else the first trigger. */
  trigger?: string;
  /** The port the fired trigger activates (default `default`). */
  triggerPort?: string;
  /** What the trigger received (`trigger.payload`; default: the inputs), as a recorded webhook or cron run had it. */
  triggerPayload?: Record<string, unknown>;
  /** The run's correlation key (`execution.correlationKey`). */
  correlationKey?: string;
  stubs?: Stubs;
  vars?: Record<string, unknown>;
  secrets?: Record<string, string>;
  /** `error` (default, as the server): reading a missing var or secret fails the step; `undefined`: it reads as undefined. */
  missingConfig?: 'error' | 'undefined';
  signals?: SignalResponder;
  /** What `sub-workflow` steps run: key → definition, file or folder; or one folder of definition files. */
  workflows?: Record<string, WorkflowSource> | string;
  clock?: ClockMode;
  throwOnFailure?: boolean;
  /**
   * Outbound policy of the real http-request, paginated-fetch and code-exec plugins: the server's default
   * (loopback and private ranges closed), with what is given here in place of its fields. A local run that
   * calls a local service opens its range: `egress: { allowCidrs: ['127.0.0.0/8', '::1'] }`.
   */
  egress?: Partial<EgressPolicy>;
  /** Run limits (default: the server's defaults, such as a sub-workflow depth of 10 and 100 children per execution). */
  limits?: Partial<RunLimits>;
  /** Every step event as it happens (the command line's live view). */
  onEvent?: (event: StepEvent, executionId: string) => void;
}

export interface StepResult {
  status: StepRecord['status'];
  inputs?: Record<string, unknown>;
  outputs: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
  activePorts: string[];
  error?: StepRecord['error'];
  /** How many times the step ran (0: skipped without running, on a path not taken). */
  runs: number;
  /** When its latest run started and settled (the run's clock). */
  startedAt?: string;
  completedAt?: string;
}

export interface RunResult {
  status: 'completed' | 'failed';
  outputs: Record<string, unknown>;
  steps: Record<string, StepResult>;
  variables: Record<string, unknown>;
  logs: LogEntryDraft[];
  error?: RunFailureInfo;
  executionId: string;
}

/** What a run and its sub-workflow runs share. */
interface Session {
  options: RunOptions;
  stubs: Map<string, ResolvedStub>;
  clock: Clock;
  child: (key: string) => WorkflowDefinition | undefined;
  /** Children started below the top run (one local run is one tree), against the tree budget. */
  descendants: number;
}

export async function runWorkflow(options: RunOptions): Promise<RunResult> {
  const stubs = resolveStubs(options.stubs);
  const plugins = Object.fromEntries([...stubs].map(([name, stub]) => [name, stub.descriptor]));
  const definition = definitionOf(options, plugins);
  const session: Session = {
    options,
    stubs,
    clock: createClock(options.clock),
    child: childResolver(options.workflows, { plugins }),
    descendants: 0,
  };
  const result = await execute(session, definition, topLevelStart(options));
  if (result.status === 'failed' && options.throwOnFailure) throw new WorkflowRunFailed(result.error!, result);
  return result;
}

export function definitionOf(options: RunOptions, plugins: Record<string, ResolvedStub['descriptor']>): WorkflowDefinition {
  if (options.definition && options.file) throw new TypeError('runWorkflow takes a definition or a file, not both');
  if (options.file) {
    const loaded = loadDefinition(options.file, { plugins });
    if (!loaded.definition || loaded.errors.length > 0) throw new DefinitionInvalid(loaded.errors, options.file);
    return loaded.definition;
  }
  if (!options.definition) throw new TypeError('runWorkflow needs a definition or a file');
  return requireValid(options.definition, { plugins });
}

export interface Start {
  inputs: Record<string, unknown>;
  triggerStep?: string;
  triggerPort?: string;
  triggerPayload?: Record<string, unknown>;
  source?: TriggerInfo['source'];
  depth: number;
  rootExecutionId?: string;
  parentExecutionId?: string;
  correlationKey?: string;
  executionId?: string;
}

/** How a test's run starts: at the top (depth 0), with the trigger and inputs its options name. */
export function topLevelStart(options: RunOptions): Start {
  return {
    inputs: options.inputs ?? {},
    triggerStep: options.trigger,
    triggerPort: options.triggerPort,
    triggerPayload: options.triggerPayload,
    correlationKey: options.correlationKey,
    depth: 0,
  };
}

async function execute(session: Session, definition: WorkflowDefinition, start: Start): Promise<RunResult> {
  const { options, clock } = session;
  const input = executionInput(definition, start, clock, options.limits);
  const logs: LogEntryDraft[] = [];
  const stepInputs: Record<string, Record<string, unknown>> = {};
  // Set once startExecution returns; plugin calls read the run's variables through it.
  const holder: { run?: ReturnType<typeof startExecution> } = {};
  const callPlugin = createPluginHost({
    stubs: session.stubs,
    secrets: options.secrets ?? {},
    missingConfig: options.missingConfig ?? 'error',
    clock,
    egress: options.egress && { ...DEFAULT_EGRESS, ...options.egress },
    maxPages: DEFAULT_LIMITS.maxPages,
    stepOf: (stepId) => definition.steps[stepId],
    variables: () => holder.run?.ctx.variables ?? {},
  });
  const effects = localEffects({
    input,
    clock,
    callPlugin: async (call) => {
      // The engine may call before startExecution returns: let it return, so the stub sees the run's variables.
      await Promise.resolve();
      stepInputs[call.stepId] = call.inputs;
      return callPlugin(call);
    },
    hostPlugin: (pluginType) => {
      const stub = session.stubs.get(pluginType);
      return stub?.handler && stub.descriptor.kind !== 'trigger' ? stub.descriptor : undefined;
    },
    signals: options.signals,
    runChild: (request) => runChild(session, input, request),
    logs,
    onEvent: options.onEvent ? (event) => options.onEvent!(event, input.executionId) : undefined,
  });
  const run = (holder.run = startExecution(input, varsFor(definition, options), effects));
  const outcome = await run.done;
  const failed = outcome.status === 'failed';
  return {
    status: failed ? 'failed' : 'completed',
    outputs: outcome.outputs,
    steps: stepResults(run.ctx.steps, stepInputs),
    variables: run.ctx.variables,
    logs,
    ...(failed ? { error: outcome.error ?? { type: 'EXECUTION_FAILED', message: 'the execution failed' } } : {}),
    executionId: input.executionId,
  };
}

/** The run's step records as the result reports them (`inputs`: the record's, else those of the step's last plugin call). */
export function stepResults(
  records: Record<string, StepRecord>,
  stepInputs: Record<string, Record<string, unknown>>,
): Record<string, StepResult> {
  const steps: Record<string, StepResult> = {};
  for (const [id, record] of Object.entries(records)) {
    const inputs = record.inputs ?? stepInputs[id];
    steps[id] = {
      status: record.status,
      ...(inputs !== undefined ? { inputs } : {}),
      outputs: record.outputs,
      items: record.items,
      activePorts: record.activePorts,
      ...(record.error ? { error: record.error } : {}),
      runs: record.run,
      ...(record.startedAt ? { startedAt: record.startedAt } : {}),
      ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    };
  }
  return steps;
}

export function executionInput(
  definition: WorkflowDefinition,
  start: Start,
  clock: Clock,
  limits: Partial<RunLimits> = {},
): ExecutionInput {
  const triggers = Object.values(definition.steps).filter((step) => step.type === 'trigger');
  const fired = start.triggerStep
    ? definition.steps[start.triggerStep]
    : (triggers.find((step) => step.pluginType === 'manual') ?? triggers[0]);
  if (start.triggerStep && fired?.type !== 'trigger')
    throw new TypeError(`trigger "${start.triggerStep}" is not a trigger step of this workflow`);
  // A manual start is checked as the API's execute checks it: the definition's `inputs` and the manual trigger's
  // declarations (type and required; their JSON `schema` is checked by the API only). Children are not, as on the server.
  if (fired?.pluginType === 'manual' && start.source === undefined) {
    const errors = checkInputs({ ...objectOr(definition.inputs), ...objectOr(fired.config.inputs) }, start.inputs);
    if (errors.length > 0) throw new InputsInvalid(errors);
  }
  const source: TriggerInfo['source'] =
    start.source ?? (fired?.pluginType === 'cron' ? 'cron' : fired?.pluginType === 'webhook' ? 'webhook' : 'manual');
  const executionId = start.executionId ?? newExecutionId();
  return {
    executionId,
    organizationId: 'local',
    workflowId: definition.key ?? 'local',
    ...(definition.key ? { workflowKey: definition.key } : {}),
    revision: 1,
    definition,
    inputs: start.inputs,
    trigger: {
      ...(fired ? { stepId: fired.id } : {}),
      source,
      payload: start.triggerPayload ?? start.inputs,
      receivedAt: new Date(clock.now()).toISOString(),
      ...(start.triggerPort && start.triggerPort !== 'default' ? { port: start.triggerPort } : {}),
    },
    ...(start.correlationKey !== undefined ? { correlationKey: start.correlationKey } : {}),
    ...(start.parentExecutionId ? { parentExecutionId: start.parentExecutionId } : {}),
    ...(start.rootExecutionId ? { rootExecutionId: start.rootExecutionId } : {}),
    limits: { ...runLimitsFrom(DEFAULT_LIMITS), ...limits },
    depth: start.depth,
    // The rules a run started on the server now follows (a local run computes as a new run there does).
    engineRules: ENGINE_RULES,
  };
}

/** The `vars` the run reads: the given ones; with missingConfig `undefined`, the referenced names without a value read as undefined. */
export function varsFor(definition: WorkflowDefinition, options: RunOptions): Record<string, unknown> {
  const vars: Record<string, unknown> = { ...options.vars };
  if (options.missingConfig === 'undefined') {
    for (const reference of validateWithEngine(definition).references) {
      if (reference.kind === 'var' && !Object.hasOwn(vars, reference.name)) vars[reference.name] = undefined;
    }
  }
  return vars;
}

async function runChild(
  session: Session,
  parent: ExecutionInput,
  request: { workflowId: string; inputs: Record<string, unknown>; waitForCompletion: boolean; correlationKey?: string },
) {
  const definition = session.child(request.workflowId);
  if (!definition)
    throw new StepCallFailure(
      'WORKFLOW_NOT_FOUND',
      `sub-workflow "${request.workflowId}" is not known to this local run: pass it in the workflows option, or stub sub-workflow`,
      true,
    );
  // The tree budget, as the server counts it on the root's row (executions/record-run.ts).
  const rootExecutionId = parent.rootExecutionId ?? parent.executionId;
  const budget = parent.limits?.maxExecutionsPerTree ?? Infinity;
  if (session.descendants >= budget)
    throw new StepCallFailure(
      'SUBWORKFLOW_TREE_BUDGET_EXCEEDED',
      `sub-workflow "${request.workflowId}" cannot start: the sub-workflow tree of execution ${rootExecutionId} may hold at most ${budget} executions below its root (${RUN_LIMIT_SETTINGS.maxExecutionsPerTree})`,
      true,
    );
  session.descendants += 1;
  const executionId = newExecutionId();
  const child = execute(session, definition, {
    executionId,
    inputs: request.inputs,
    source: 'sub-workflow',
    depth: (parent.depth ?? 0) + 1,
    rootExecutionId,
    parentExecutionId: parent.executionId,
    correlationKey: request.correlationKey,
  });
  if (!request.waitForCompletion) {
    // Started and not awaited, as on the server; its failure is its own.
    child.catch(() => undefined);
    return { executionId, outputs: {} };
  }
  const result = await child;
  if (result.status === 'failed') {
    const error = result.error!;
    throw new StepCallFailure(error.type, error.message, true);
  }
  return { executionId: result.executionId, outputs: result.outputs };
}

function newExecutionId(): string {
  return `exec_local_${randomUUID().replace(/-/g, '')}`;
}

function objectOr(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
