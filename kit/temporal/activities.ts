/**
 * The activities the kit's Temporal worker registers, under the names the
 * execution workflow proxies (activities/create-execution-activities.ts), with
 * nothing behind them but memory: plugin calls go to the test's stubs (or the
 * real effectful plugins) through the kit's plugin host, one attempt per
 * activity (Temporal retries under the step's policy); step records, logs and
 * the final record are kept in the run's `KitRunRecord`, never in a database.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { PLUGIN_ATTEMPT_DETAIL, PLUGIN_LOGS_DETAIL, type ActivityCall, type PluginResult } from '../../workflows/engine';
import type { ExecutionActivities } from '../../activities/create-execution-activities';
import type { EventBatch, FinishRequest, NumberedLog } from '../../activities/execution-activity-types';
import { callOnce, StepCallFailure, type PluginHostOptions } from '../plugin-host';

/** What one run on the kit's worker keeps in memory, by execution id. */
export interface KitRunRecord {
  host: PluginHostOptions;
  vars: Record<string, unknown>;
  /** Each step's inputs as its last plugin call had them (the result's `steps.x.inputs`). */
  stepInputs: Record<string, Record<string, unknown>>;
  /** Log entries by their number in the execution (a retried batch is kept once). */
  logs: Map<number, NumberedLog>;
  /** The run's variables as its last batch reported them. */
  variables: Record<string, unknown>;
  /** The run's variables now (its state query): what a stub's `ctx.variables` holds, as in-process. */
  currentVariables(): Promise<Record<string, unknown>>;
  finished?: FinishRequest;
}

export type KitRuns = Map<string, KitRunRecord>;

/** In-memory stand-ins of the execution workflow's activities (no PostgreSQL): the kit's worker only. */
export function inMemoryExecutionActivities(runs: KitRuns): ExecutionActivities {
  const runOf = (executionId: string): KitRunRecord => {
    const run = runs.get(executionId);
    if (!run) throw ApplicationFailure.nonRetryable(`execution ${executionId} was not started by this kit`, 'KIT_RUN_UNKNOWN');
    return run;
  };
  const record = (batch: EventBatch | undefined) => {
    if (!batch) return;
    const run = runOf(batch.executionId);
    for (const log of batch.logs) run.logs.set(log.seq, log);
    if (batch.progress?.variables) run.variables = batch.progress.variables;
  };
  const callPlugin = async (call: ActivityCall): Promise<PluginResult> => {
    const run = runOf(call.executionId);
    run.stepInputs[call.stepId] = call.inputs;
    // The engine numbers the attempts it retries itself (a policy with jitter); Temporal's own count on from there.
    const attempt = (call.attempt ?? 1) + Context.current().info.attempt - 1;
    const stubbed = run.host.stubs.get(call.pluginType)?.handler !== undefined;
    const variables = stubbed ? await run.currentVariables().catch(() => run.variables) : run.variables;
    let result: PluginResult;
    try {
      result = await callOnce({ ...run.host, variables: () => variables }, call, attempt);
    } catch (error) {
      throw toActivityFailure(error, attempt);
    }
    // A failure the plugin calls retryable is tried again under the step's policy, as the in-process host does.
    if (result.status === 'failure' && result.error?.retryable === true && attempt < (call.retryPolicy?.maximumAttempts ?? 1))
      throw ApplicationFailure.retryable(result.error.message, result.error.code);
    return result;
  };
  return {
    callPlugin,
    // A wait's `notify` reaches people; a test run sends nothing, as the in-process host does.
    notifyWait: () => Promise.resolve({ sent: false }),
    async callLightStep({ call, batch }) {
      record(batch);
      return { result: await callPlugin(call), batchWritten: true };
    },
    resolveVars({ executionId, names }) {
      const { vars } = runOf(executionId);
      // As the real activity: a name without a value is left out, and the step that reads it fails.
      return Promise.resolve(Object.fromEntries(names.filter((name) => Object.hasOwn(vars, name)).map((name) => [name, vars[name]])));
    },
    recordEvents(batch) {
      record(batch);
      return Promise.resolve();
    },
    finishExecution(request) {
      record(request.batch);
      runOf(request.executionId).finished = request;
      return Promise.resolve();
    },
    prepareChild: (request) =>
      Promise.reject(
        ApplicationFailure.nonRetryable(
          `sub-workflow "${request.workflowId}" is not known to this run: under executor 'temporal' stub sub-workflow`,
          'WORKFLOW_NOT_FOUND',
        ),
      ),
    prepareScheduledExecution: () => Promise.reject(ApplicationFailure.nonRetryable('the kit starts no scheduled runs', 'KIT_UNSUPPORTED')),
  };
}

/** A failed call as the execution workflow reads a failed plugin activity: its type, retryability and log lines. */
function toActivityFailure(error: unknown, attempt: number): ApplicationFailure {
  const failure =
    error instanceof StepCallFailure
      ? error
      : new StepCallFailure('PLUGIN_ERROR', error instanceof Error ? error.message : String(error), false);
  const logs = (failure.cause.details[0] as Record<string, unknown> | undefined)?.[PLUGIN_LOGS_DETAIL] ?? [];
  return ApplicationFailure.create({
    message: failure.cause.message,
    type: failure.cause.type,
    nonRetryable: failure.cause.nonRetryable,
    details: [{ [PLUGIN_LOGS_DETAIL]: logs, [PLUGIN_ATTEMPT_DETAIL]: attempt }],
  });
}
