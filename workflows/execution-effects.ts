/**
 * The engine's effects on Temporal: effectful plugins run as activities with
 * the step's timeout and retry policy (light steps as local activities), sub-workflows as child workflows,
 * delays as durable timers, waits on the workflow's open waits; logs and step
 * events go to the persistence batcher.
 */
import {
  ActivityFailure,
  CancellationScope,
  CancelledFailure,
  TimeoutFailure,
  patched,
  proxyActivities,
  proxyLocalActivities,
  ParentClosePolicy,
  sleep,
  startChild,
  uuid4,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LightStepOutcome } from '../activities/execution-activity-types';
import {
  EXECUTION_WORKFLOW_TYPE,
  NON_RETRYABLE_ERROR_TYPES,
  createLimiter,
  runLimitsOf,
  truncateUtf8,
  type ActivityCall,
  type ChildRequest,
  type ChildResult,
  type ExecutionInput,
  type PluginResult,
  type RuntimeEffects,
} from './engine';
import type { EventBatcher } from './execution-persistence';
import type { OpenWaits } from './execution-waits';
import type { LocalActivityLane } from './local-activity-lane';

/** The execution workflow's signature, for starting children by type name. */
type ExecutionWorkflow = (input: ExecutionInput) => Promise<Record<string, unknown>>;

export function temporalEffects(input: ExecutionInput, waits: OpenWaits, batcher: EventBatcher, lane: LocalActivityLane): RuntimeEffects {
  const limits = runLimitsOf(input);
  // Plugin activities of this execution beyond the limit wait for a slot (fan-outs, parallel branches).
  const inFlight = createLimiter(limits.maxActivitiesInFlight);
  return {
    now: () => Date.now(),
    uuid: () => uuid4(),
    callActivity: (call) => inFlight(() => (call.light ? lane.run(() => callLightStep(call, batcher)) : callPluginAsActivity(call))),
    sleep: (ms) => sleep(ms),
    waitForSignal: (request) => waits.wait(request),
    runChild: (request) => runChild(input, request),
    log: (entry) => batcher.log({ ...entry, message: truncateUtf8(entry.message, limits.maxLogMessageBytes) }),
    onEvent: (event) => batcher.event(event),
    // The kit's stubs, when it runs a test on this workflow (never set on the server's runs).
    ...(input.hostPlugins ? { hostPlugin: hostPluginOf(input.hostPlugins) } : {}),
  };
}

function hostPluginOf(plugins: NonNullable<ExecutionInput['hostPlugins']>): RuntimeEffects['hostPlugin'] {
  return (pluginType) => (Object.hasOwn(plugins, pluginType) ? plugins[pluginType] : undefined);
}

/**
 * Temporal's StartToClose is the backstop; the plugin enforces the step's
 * timeout itself (code-exec's deadline) and says so precisely. Its clock
 * starts a little after Temporal's, so an equal StartToClose would win the
 * race and turn SANDBOX_TIMEOUT into a bare "activity StartToClose timeout".
 */
const ACTIVITY_TIMEOUT_GRACE_MS = 5_000;

/**
 * A running plugin heartbeats every second (activities/create-execution-activities.ts): a
 * worker that dies (SIGKILL, a lost machine) is noticed after this long instead of after
 * the step's whole timeout. A shorter step timeout shortens it to below the StartToClose
 * backstop, so that a stopped heartbeat, never the backstop, is how a lost worker shows.
 */
const PLUGIN_HEARTBEAT_TIMEOUT_MS = 15_000;
/** Margin between the heartbeat timeout and the StartToClose backstop of a short step (over 4 missed beats). */
const HEARTBEAT_BEFORE_BACKSTOP_MS = 1_000;

/**
 * A worker lost mid-call (its worker, or the worker, the API and the dev server together, died)
 * is not a failure of the step: the lost attempt runs again on another worker, whatever the step's
 * retry policy, this many times at most. With a policy, Temporal retries a lost attempt as one
 * of the policy's; the last one lost is replaced by one more attempt. Calls are at least once,
 * as every Temporal activity: a call the lost worker had already made is made again (docs/faults.md,
 * "Calls are at least once").
 */
const LOST_WORKER_RERUNS = 5;

/**
 * Runs whose history holds this marker re-run a lost worker's call. Before it, a lost call failed
 * the step (the re-run was meant for steps without a policy, but every call carries one), and a
 * run that went on past such a failure (continueOnError, a fallback step) replays as it ran.
 */
export const LOST_WORKER_RERUN_PATCH = 'lost-worker-rerun';

/** The step's retry policy for Temporal (else one attempt). */
function retryOf(call: ActivityCall): RetryPolicy {
  const policy = call.retryPolicy;
  return policy
    ? {
        maximumAttempts: policy.maximumAttempts,
        initialInterval: policy.initialIntervalMs,
        backoffCoefficient: policy.backoffCoefficient,
        maximumInterval: policy.maximumIntervalMs,
        nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
      }
    : { maximumAttempts: 1 };
}

/** WorkflowExecutionStarted, WorkflowTaskScheduled, WorkflowTaskStarted: the run's first workflow task, first attempt. */
const FIRST_TASK_HISTORY_LENGTH = 3;

/**
 * A light step (docs/architecture.md, "Light steps"): a local activity runs in this worker within the workflow task,
 * so a chain of them costs no task dispatch per step; it runs in the run's lane (one local activity at a
 * time: local-activity-lane.ts) and writes the step records batched before it along with its result. Temporal records its result when the workflow task completes; a worker
 * lost before that makes another worker run the step again, and the activity answers from the result it
 * stored under the call's key when the call completed (db/repositories/light-step-result-repository.ts),
 * so a completed call is not made again. Retries follow the step's policy, in the worker (a long backoff
 * becomes a timer).
 */
async function callLightStep(call: ActivityCall, batcher: EventBatcher): Promise<PluginResult> {
  const { callLightStep: viaLocalActivity } = proxyLocalActivities<Activities>({
    startToCloseTimeout: (call.timeoutMs ?? 0) + ACTIVITY_TIMEOUT_GRACE_MS,
    retry: retryOf(call),
  });
  // A cancelled run starts no further light step (its turn in the lane may come after the cancel request).
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('the execution was cancelled');
  // The step records batched so far ride along (one local activity per light step, not two).
  const batch = batcher.take();
  let outcome: LightStepOutcome;
  try {
    // Never cancelled in flight: a cancel that met a local activity in a workflow task the SDK was heartbeating failed
    // that task with "[TMPRL1100] Nondeterminism error: Invalid transition in state machine", on every retry, and the
    // run never ended. A light call is short (LIGHT_STEP_MAX_TIMEOUT_MS): the cancel waits for it, then the run ends.
    const end = call.endsRun ? { end: batcher.tailNumbering(call.stepId) } : {};
    const firstTask = workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH ? { firstTask: true as const } : {};
    outcome = await CancellationScope.nonCancellable(() => viaLocalActivity({ call, batch, ...end, ...firstTask }));
  } catch (error) {
    // The call failed, perhaps before the batch was written: write it (again; records are idempotent).
    if (batch) await batcher.writeAgain(batch);
    throw error;
  }
  if (batch && !outcome.batchWritten) await batcher.writeAgain(batch);
  if (outcome.endWritten === true) batcher.endWrittenByStep = true;
  return outcome.result;
}

/** An ordinary activity: the step's timeout per attempt (plus the grace), its retry policy, heartbeats. */
async function callPluginAsActivity(call: ActivityCall): Promise<PluginResult> {
  const startToCloseTimeout = (call.timeoutMs ?? 300_000) + ACTIVITY_TIMEOUT_GRACE_MS;
  const options = {
    startToCloseTimeout,
    heartbeatTimeout: Math.min(PLUGIN_HEARTBEAT_TIMEOUT_MS, startToCloseTimeout - HEARTBEAT_BEFORE_BACKSTOP_MS),
  };
  const { callPlugin } = proxyActivities<Activities>({ ...options, retry: retryOf(call) });
  // A re-run stands for the one lost attempt: it adds no retries the step's policy did not grant.
  const { callPlugin: rerunPlugin } = proxyActivities<Activities>({ ...options, retry: { maximumAttempts: 1 } });
  for (let reruns = 0; ; reruns += 1) {
    try {
      return await (reruns === 0 ? callPlugin(call) : rerunPlugin(call));
    } catch (error) {
      // patched() last: it marks only the runs that re-run.
      if (reruns >= LOST_WORKER_RERUNS || !workerLost(error) || !patched(LOST_WORKER_RERUN_PATCH)) throw error;
    }
  }
}

/**
 * The activity stopped heartbeating: its worker died or hung (a plugin that fails says so instead). Not a
 * StartToClose timeout: the heartbeat timeout is shorter, so that one means a worker that still beat overran the step.
 */
function workerLost(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && error.cause.timeoutType === 'HEARTBEAT';
}

/**
 * What Temporal does to a child still running when its parent closes. A fire-and-forget child
 * (`waitForCompletion: false`) is abandoned: it runs on and records its own end. Under the default
 * (TERMINATE) it was killed with its parent, and a terminated run records nothing, so its row stayed
 * `running`. A waited-for child is part of its parent's step: once the parent has ended (failed,
 * terminated) nobody takes its result, so it is terminated rather than left to run its effects.
 * Replay compares only a child's workflow id and type with the recorded start, not its close
 * policy (sdk-core's child workflow machine), so running histories replay without a patch.
 */
function closePolicyOf(request: ChildRequest): ParentClosePolicy {
  return request.waitForCompletion ? ParentClosePolicy.TERMINATE : ParentClosePolicy.ABANDON;
}

/** A sub-workflow step: prepare the child (revision, record) by activity, then run it as a child workflow. */
async function runChild(parent: ExecutionInput, request: ChildRequest): Promise<ChildResult> {
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
    // The child inherits the parent's limits, one level deeper (the sub-workflow step checked the depth).
    limits: parent.limits,
    depth: (parent.depth ?? 0) + 1,
    // The whole tree is counted on its root's row, against the tree budget.
    rootExecutionId: parent.rootExecutionId ?? parent.executionId,
  });
  const handle = await startChild<ExecutionWorkflow>(EXECUTION_WORKFLOW_TYPE, {
    workflowId: childExecutionId,
    args: [childInput],
    taskQueue: workflowInfo().taskQueue,
    memo: {
      organizationId: childInput.organizationId,
      workflowId: childInput.workflowId,
      revision: childInput.revision,
      parentExecutionId: parent.executionId,
    },
    parentClosePolicy: closePolicyOf(request),
  });
  if (!request.waitForCompletion) return { executionId: childExecutionId, outputs: {} };
  return { executionId: childExecutionId, outputs: await handle.result() };
}
