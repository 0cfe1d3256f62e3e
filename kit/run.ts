/**
 * `runWorkflow`: one execution in-process, without Temporal or a database,
 * walked by the engine's own runtime (`startExecution`, as the worker's
 * workflow calls it) with a local host for its effects (./local-effects).
 */
import { RUN_LIMIT_SETTINGS, startExecution, type ExecutionInput, type LogEntryDraft, type WorkflowDefinition } from '../workflows/engine';
import { DEFAULT_EGRESS } from '../activities/egress/policy';
import { DEFAULT_LIMITS } from '../config/limits';
import { childResolver } from './children';
import { createClock, type Clock } from './clock';
import { WorkflowRunFailed } from './errors';
import { localEffects } from './local-effects';
import { createPluginHost, StepCallFailure } from './plugin-host';
import { resolveStubs, type ResolvedStub } from './stubs';
import { definitionOf, executionInput, newExecutionId, topLevelStart, varsFor, type Start } from './run-input';
import { stepResults, type RunOptions, type RunResult } from './run-types';

export type { RunOptions, RunResult, StepResult } from './run-types';

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
