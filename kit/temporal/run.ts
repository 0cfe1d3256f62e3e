/**
 * `executor: 'temporal'`: one run of a workflow on a real Temporal worker with
 * the project's workflow bundle (the execution workflow the server's worker
 * runs), so a test can check that a local run and a durable one agree. The
 * definition is loaded and checked as `runWorkflow` does; the test's stubs
 * run as the worker's plugin activities (a stubbed step is an activity call,
 * as the run's `hostPlugins` tell the workflow); the result has
 * `runWorkflow`'s shape, read from the run's state query and its in-memory records.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { DEFAULT_EGRESS } from '../../activities/egress/policy';
import { DEFAULT_LIMITS } from '../../config/limits';
import { ENGINE_RULES, EXECUTION_WORKFLOW_TYPE, type LogEntryDraft, type PluginDescriptor, type StepRecord } from '../../workflows/engine';
import { createClock } from '../clock';
import { WorkflowRunFailed } from '../errors';
import { definitionOf, executionInput, topLevelStart, varsFor } from '../run-input';
import { stepResults, type RunOptions, type RunResult } from '../run-types';
import { resolveStubs, type ResolvedStub } from '../stubs';
import type { KitRunRecord } from './activities';
import { withKitTemporal, type TemporalTarget } from './session';

/** What `getState` (workflows/messages.ts) answers; read by name, so the kit loads no workflow code. */
interface RunState {
  steps: Record<string, StepRecord>;
  variables: Record<string, unknown>;
}

/** Options a run on Temporal cannot honour as the in-process run does, and what to do instead. */
const IN_PROCESS_ONLY: Partial<Record<keyof RunOptions, string>> = {
  signals: "answers waits in-process only: stub the wait's plugin (signal-wait, webhook-wait) instead",
  workflows: 'runs sub-workflows in-process only: stub sub-workflow instead',
  clock: "is the in-process clock: on Temporal a delay, a wait's timeout and a retry's back-off take their real time",
  onEvent: 'is in-process only',
};

export interface TemporalRunOptions extends RunOptions {
  temporal?: TemporalTarget;
}

/** Runs the workflow once on the kit's Temporal worker; resolves with the run's result, failed or not (unless throwOnFailure). */
export async function runWorkflowOnTemporal(options: TemporalRunOptions): Promise<RunResult> {
  for (const [option, why] of Object.entries(IN_PROCESS_ONLY))
    if (options[option as keyof RunOptions] !== undefined) throw new TypeError(`executor 'temporal': ${option} ${why}`);
  const stubs = resolveStubs(options.stubs);
  const plugins = Object.fromEntries([...stubs].map(([name, stub]) => [name, stub.descriptor]));
  const definition = definitionOf(options, plugins);
  const input = {
    ...executionInput(definition, topLevelStart(options), createClock('real'), options.limits),
    engineRules: ENGINE_RULES,
    hostPlugins: hostedPlugins(stubs),
  };
  const result = await withKitTemporal(options.temporal ?? {}, async ({ client, taskQueue, runs }) => {
    const handle = client.workflow.getHandle(input.executionId);
    const record: KitRunRecord = {
      host: {
        stubs,
        secrets: options.secrets ?? {},
        missingConfig: options.missingConfig ?? 'error',
        clock: createClock('real'),
        egress: options.egress && { ...DEFAULT_EGRESS, ...options.egress },
        maxPages: DEFAULT_LIMITS.maxPages,
        stepOf: (stepId) => definition.steps[stepId],
        variables: () => ({}),
      },
      vars: varsFor(definition, options),
      stepInputs: {},
      logs: new Map(),
      variables: {},
      currentVariables: async () => (await handle.query<RunState>('getState')).variables,
    };
    runs.set(input.executionId, record);
    try {
      await client.workflow.start(EXECUTION_WORKFLOW_TYPE, { taskQueue, workflowId: input.executionId, args: [input] });
      await handle.result().catch((error: unknown) => {
        // A failed execution is a result; a run that never finished (terminated) or a worker or server error is not.
        if (!(error instanceof WorkflowFailedError)) throw error;
        if (!record.finished)
          throw new Error(`execution ${input.executionId} did not finish on Temporal: ${error.cause?.message ?? error.message}`, {
            cause: error,
          });
      });
      // The run is closed; its state query replays its history on the worker.
      const state = await handle.query<RunState>('getState');
      return toResult(input.executionId, record, state);
    } finally {
      runs.delete(input.executionId);
    }
  });
  if (result.status === 'failed' && options.throwOnFailure) throw new WorkflowRunFailed(result.error!, result);
  return result;
}

/** The stubs with a handler the workflow hands to the host (a trigger's stub only declares the plugin), as in-process. */
function hostedPlugins(stubs: Map<string, ResolvedStub>): Record<string, PluginDescriptor> {
  return Object.fromEntries(
    [...stubs].filter(([, stub]) => stub.handler && stub.descriptor.kind !== 'trigger').map(([name, stub]) => [name, stub.descriptor]),
  );
}

function toResult(executionId: string, record: KitRunRecord, state: RunState): RunResult {
  const finished = record.finished;
  if (!finished) throw new Error(`execution ${executionId} ended without its final record`);
  const failed = finished.status !== 'completed';
  const logs: LogEntryDraft[] = [...record.logs.values()]
    .sort((a, b) => a.seq - b.seq)
    .map(({ seq: _seq, stepSeq: _stepSeq, ...entry }) => entry);
  return {
    status: failed ? 'failed' : 'completed',
    outputs: finished.outputs,
    steps: stepResults(state.steps, record.stepInputs),
    variables: state.variables,
    logs,
    ...(failed ? { error: finished.error ?? { type: 'EXECUTION_FAILED', message: 'the execution failed' } } : {}),
    executionId,
  };
}
