/**
 * The Temporal workflow that runs one execution (workflow id = execution id).
 * It receives the normalized definition of an immutable revision, runs pure
 * steps inline through the engine runtime, effectful plugins as activities
 * with the step's timeout and retry policy, waits on signals workflow-side,
 * and runs sub-workflows as child workflows. Step records and logs are
 * persisted in batches by a local activity whenever the workflow is about to
 * block, so a graph of pure steps costs one round trip, not one per step.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setDefaultSignalHandler,
  setHandler,
  sleep,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { NumberedLog } from '../activities/execution-activity-types';
import { collectReferences, parseExpression, startExecution, templateSources, type ActivityCall, type ChildResult, type ConfigReference, type ContinuedRun, type ExecutionInput, type ExecutionRun, type PluginResult, type RuntimeEffects, type ScheduledStart, type StepEvent, type WaitRequest, type WaitResult } from './engine';
import { cancelReasonSignal, deliverSignalUpdate, stateQuery, type ExecutionPhase, type PendingWait, type SignalDelivery } from './messages';

const persistence = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** Below Temporal's 10,240-event warning, with room for the steps in flight when it is checked. */
export const DEFAULT_HISTORY_EVENT_LIMIT = 8_000;

interface OpenWait extends PendingWait {
  release(result: WaitResult): void;
}

export async function runWorkflowExecution(start: ExecutionInput | ScheduledStart): Promise<Record<string, unknown>> {
  // A cron tick carries only where to find the revision; the execution is recorded and its input built by an activity.
  const input =
    'definition' in start
      ? start
      : await persistence.prepareScheduledExecution({
          start,
          executionId: workflowInfo().workflowId,
          runId: workflowInfo().runId,
          firedAt: workflowInfo().runStartTime.getTime(),
        });
  let phase: ExecutionPhase = 'running';
  const waits: OpenWait[] = [];
  const pendingEvents: StepEvent[] = [];
  const pendingLogs: NumberedLog[] = [];
  // Log and event numbering goes on across continue-as-new.
  let seq = input.continued?.logSeq ?? 0;
  const stepSeqs: Record<string, number> = { ...input.continued?.stepSeqs };
  /** Step events are numbered densely; the number is the event stream's id. */
  let eventSeq = input.continued?.eventSeq ?? 0;
  let finished = false;

  const matchWait = (name: string, correlationKey?: string): OpenWait | undefined =>
    waits.find((wait) => wait.signalNames.includes(name) && (correlationKey === undefined || wait.correlationKey === correlationKey));

  // The API delivers signals as an update: the validator rejects atomically when nothing waits (409).
  setHandler(
    deliverSignalUpdate,
    (delivery: SignalDelivery) => {
      const wait = matchWait(delivery.name, delivery.correlationKey)!;
      wait.release({ timedOut: false, name: delivery.name, payload: delivery.payload, signalId: delivery.signalId, receivedAt: new Date().toISOString() });
      return { delivered: true as const, signalId: delivery.signalId, stepId: wait.stepId };
    },
    {
      validator: (delivery: SignalDelivery) => {
        if (!matchWait(delivery.name, delivery.correlationKey)) throw new Error(`the execution is not waiting on signal "${delivery.name}"`);
      },
    },
  );
  let cancelReason: string | undefined;
  setHandler(cancelReasonSignal, (reason: string) => {
    if (typeof reason === 'string' && reason.trim() !== '') cancelReason = reason.slice(0, 1000);
  });
  // Plain Temporal signals of the same names (Temporal UI, CLI) release a waiting step too.
  setDefaultSignalHandler((name: string, ...args: unknown[]) => {
    const wait = matchWait(name);
    wait?.release({ timedOut: false, name, payload: args[0] ?? null, signalId: `sig_${uuid4().replace(/-/g, '')}`, receivedAt: new Date().toISOString() });
  });

  const activityCall = (call: ActivityCall): Promise<PluginResult> => {
    const policy = call.retryPolicy;
    const { callPlugin } = proxyActivities<Activities>({
      startToCloseTimeout: call.timeoutMs ?? 300_000,
      retry: policy
        ? {
            maximumAttempts: policy.maximumAttempts,
            initialInterval: policy.initialIntervalMs,
            backoffCoefficient: policy.backoffCoefficient,
            maximumInterval: policy.maximumIntervalMs,
            nonRetryableErrorTypes: ['PLUGIN_CONFIG_INVALID', 'SECRET_UNRESOLVED'],
          }
        : { maximumAttempts: 1 },
    });
    return callPlugin(call);
  };

  const effects: RuntimeEffects = {
    now: () => Date.now(),
    uuid: () => uuid4(),
    callActivity: activityCall,
    sleep: (ms) => sleep(ms),
    waitForSignal: async (request: WaitRequest) => {
      let result: WaitResult | undefined;
      const since = Date.now();
      const wait: OpenWait = {
        waitId: uuid4(),
        stepId: request.stepId,
        signalNames: request.signalNames,
        correlationKey: request.correlationKey,
        since: new Date(since).toISOString(),
        timeoutAt: request.timeoutMs !== undefined ? new Date(since + request.timeoutMs).toISOString() : undefined,
        callbackUrl: request.callbackUrl,
        release: (released) => {
          if (result) return;
          result = released;
          waits.splice(waits.indexOf(wait), 1);
          pendingEvents.push({ type: 'wait.ended', stepId: wait.stepId, waitId: wait.waitId, at: new Date().toISOString() });
        },
      };
      waits.push(wait);
      // Recorded (by the flusher) so POST /workflows/signals/{name} can find this execution by correlation key.
      pendingEvents.push({ type: 'wait.started', stepId: wait.stepId, waitId: wait.waitId, signalNames: wait.signalNames, correlationKey: wait.correlationKey, at: wait.since });
      if (request.timeoutMs === undefined) await condition(() => result !== undefined);
      else if (!(await condition(() => result !== undefined, request.timeoutMs))) wait.release({ timedOut: true });
      return result!;
    },
    runChild: (request) => runChild(input, request),
    log: (entry) => pendingLogs.push({ ...entry, seq: seq++, stepSeq: (stepSeqs[entry.stepId] = (stepSeqs[entry.stepId] ?? -1) + 1) }),
    onEvent: (event) => pendingEvents.push(event),
  };

  // Assigned once variables are resolved; the state query may run before that.
  const live: { execution?: ExecutionRun } = {};
  setHandler(stateQuery, () => ({
    // Waiting: every step still running is parked on a signal.
    status: phase === 'running' && waits.length > 0 && live.execution?.walker.running.length === waits.length ? 'waiting' : phase,
    steps: live.execution?.ctx.steps ?? {},
    variables: live.execution?.ctx.variables ?? {},
    currentSteps: [...(live.execution?.walker.running ?? [])],
    pendingWaits: waits.map((wait) => ({
      waitId: wait.waitId,
      stepId: wait.stepId,
      signalNames: wait.signalNames,
      correlationKey: wait.correlationKey,
      since: wait.since,
      timeoutAt: wait.timeoutAt,
      callbackUrl: wait.callbackUrl,
    })),
  }));

  let vars: Record<string, unknown>;
  try {
    vars = input.continued?.vars ?? await persistence.resolveVars({
      executionId: input.executionId,
      organizationId: input.organizationId,
      workflowId: input.workflowId,
      names: referencedVars(input),
    });
  } catch (error) {
    // Variables that cannot be read at all (the config store failing past its retries) fail the run before any step, with the cause on the record.
    // A variable without a value is no error here: the step that reads it fails then.
    const cause = (error as { cause?: { type?: string; message?: string } }).cause;
    const failure = { type: cause?.type ?? 'CONFIG_ENTRY_UNRESOLVED', message: cause?.message ?? 'variables could not be resolved' };
    phase = 'failed';
    await persistence.finishExecution({ executionId: input.executionId, organizationId: input.organizationId, status: 'failed', eventSeq, outputs: {}, error: failure });
    throw ApplicationFailure.nonRetryable(failure.message, failure.type);
  }
  const historyLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const execution = (live.execution = startExecution(input, vars, effects, {
    carried: input.continued?.state,
    shouldContinueAsNew: () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit,
  }));

  // Flush step events and logs whenever some are pending; one local activity per burst of steps.
  const flush = async () => {
    const logs = pendingLogs.splice(0);
    const events = pendingEvents.splice(0);
    if (logs.length > 0 || events.length > 0) {
      const firstEventSeq = eventSeq;
      eventSeq += events.length;
      await persistence.recordEvents({ executionId: input.executionId, organizationId: input.organizationId, firstEventSeq, events, logs });
    }
  };
  const flusher = (async () => {
    try {
      while (!finished) {
        await condition(() => pendingEvents.length > 0 || pendingLogs.length > 0 || finished);
        await flush();
      }
      await flush();
    } catch (error) {
      // On cancellation the final flush happens in a non-cancellable scope below.
      if (!isCancellation(error)) throw error;
    }
  })();

  let outcome;
  try {
    outcome = await Promise.race([execution.done, CancellationScope.current().cancelRequested]);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Cancelled: record it (the scope no longer runs activities, so leave it), then end as cancelled.
    phase = 'cancelled';
    finished = true;
    await CancellationScope.nonCancellable(async () => {
      await flusher;
      await flush();
      await persistence.finishExecution({
        executionId: input.executionId,
        organizationId: input.organizationId,
        status: 'cancelled',
        eventSeq,
        outputs: {},
        error: { type: 'CANCELLED', message: cancelReason ?? 'the execution was cancelled' },
      });
    });
    throw error;
  }
  finished = true;
  await flusher;
  if (outcome.status === 'continue' && outcome.carried) {
    // History is long: go on in a fresh run with the same workflow id, carrying the walk (no step is in flight).
    const continued: ContinuedRun = { state: outcome.carried, vars, logSeq: seq, stepSeqs, eventSeq };
    return continueAsNew<typeof runWorkflowExecution>({ ...input, continued });
  }
  phase = outcome.status === 'failed' ? 'failed' : 'completed';
  await persistence.finishExecution({
    executionId: input.executionId,
    organizationId: input.organizationId,
    status: phase,
    eventSeq,
    outputs: outcome.outputs,
    error: outcome.error,
  });
  if (phase === 'failed') {
    const error = outcome.error ?? { type: 'EXECUTION_FAILED', message: 'the execution failed' };
    throw ApplicationFailure.nonRetryable(error.message, error.type, { stepId: error.stepId ?? null });
  }
  return outcome.outputs;
}

/** `vars.X` names referenced anywhere in the definition (resolved once, at start). */
function referencedVars(input: ExecutionInput): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const sources = value.includes('${{') ? templateSources(value).sources : [value];
      for (const source of sources) {
        const parsed = parseExpression(source);
        if (!parsed.ast) continue;
        const references: ConfigReference[] = [];
        collectReferences(parsed.ast, references);
        for (const reference of references) if (reference.kind === 'var') names.add(reference.name);
      }
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(input.definition.steps);
  visit(input.definition.connections);
  visit(input.definition.outputs);
  return [...names].sort();
}

/** A sub-workflow step: prepare the child (revision, record) by activity, then run it as a child workflow. */
async function runChild(parent: ExecutionInput, request: Parameters<RuntimeEffects['runChild']>[0]): Promise<ChildResult> {
  const { prepareChild } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });
  const childExecutionId = `exec_${uuid4().replace(/-/g, '')}`;
  const childInput = await prepareChild({
    parentExecutionId: parent.executionId,
    organizationId: parent.organizationId,
    workflowId: request.workflowId,
    alias: request.alias,
    revision: request.revision,
    inputs: request.inputs,
    correlationKey: request.correlationKey,
    childExecutionId,
  });
  const handle = await startChild(runWorkflowExecution, {
    workflowId: childExecutionId,
    args: [childInput],
    taskQueue: workflowInfo().taskQueue,
    memo: { organizationId: childInput.organizationId, workflowId: childInput.workflowId, revision: childInput.revision, parentExecutionId: parent.executionId },
  });
  if (!request.waitForCompletion) return { executionId: childExecutionId, outputs: {} };
  return { executionId: childExecutionId, outputs: await handle.result() };
}
