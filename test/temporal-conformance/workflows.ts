/** Workflows used by the conformance suite (bundled once per mocha process). */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  ContinueAsNew,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  getExternalWorkflowHandle,
  upsertSearchAttributes,
  upsertMemo,
  patched,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from './activities';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '50ms', backoffCoefficient: 1 } });

export async function oneActivity(value: string): Promise<string> {
  return await acts.echo(value);
}

export async function activitySequence(values: string[]): Promise<string[]> {
  const results: string[] = [];
  for (const value of values) results.push(await acts.echo(value));
  return results;
}

export async function parallelActivities(count: number): Promise<string[]> {
  return await Promise.all(Array.from({ length: count }, (_, i) => acts.echo(String(i))));
}

export async function localActivity(value: string): Promise<string> {
  const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '5s' });
  return await local.echo(value);
}

export async function retryingActivity(key: string, failures: number): Promise<string> {
  return await acts.failTimes(key, failures);
}

/** Returns a description of the activity failure. */
export async function failingActivity(key: string, kind: 'nonRetryable' | 'nonRetryableType' | 'maxAttempts'): Promise<string> {
  try {
    if (kind === 'nonRetryable') await acts.failNonRetryable(key);
    else if (kind === 'nonRetryableType') {
      await proxyActivities<Activities>({
        startToCloseTimeout: '10s',
        retry: { initialInterval: '50ms', nonRetryableErrorTypes: ['Fatal'] },
      }).failWithType(key, 'Fatal');
    } else {
      await proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '50ms', maximumAttempts: 3 } }).failTimes(
        key,
        100,
      );
    }
    return 'no failure';
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      return `${error.cause.type ?? ''}:${error.cause.message}:${error.retryState ?? ''}`;
    }
    throw error;
  }
}

/** Returns `timeoutType` of the activity's TimeoutFailure. */
export async function activityTimeout(
  kind: 'startToClose' | 'scheduleToClose' | 'heartbeat' | 'scheduleToStart',
  key: string,
): Promise<string> {
  try {
    if (kind === 'startToClose') {
      await proxyActivities<Activities>({ startToCloseTimeout: '200ms', retry: { maximumAttempts: 2, initialInterval: '10ms' } }).silent(
        key,
        2000,
      );
    } else if (kind === 'scheduleToClose') {
      // The real server fires activity timeouts up to ~1 s late (timer queue precision): 3 s leaves room for a retry.
      await proxyActivities<Activities>({
        scheduleToCloseTimeout: '3s',
        startToCloseTimeout: '200ms',
        retry: { initialInterval: '10ms' },
      }).silent(key, 2000);
    } else if (kind === 'heartbeat') {
      await proxyActivities<Activities>({ startToCloseTimeout: '10s', heartbeatTimeout: '200ms', retry: { maximumAttempts: 1 } }).silent(
        key,
        2000,
      );
    } else {
      await proxyActivities<Activities>({
        taskQueue: 'nobody-polls-this-queue',
        scheduleToStartTimeout: '300ms',
        startToCloseTimeout: '10s',
      }).echo(key);
    }
    return 'completed';
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause && 'timeoutType' in error.cause) {
      return `${String((error.cause as { timeoutType: unknown }).timeoutType)}:${error.retryState ?? ''}`;
    }
    throw error;
  }
}

export async function heartbeatingActivity(key: string): Promise<number> {
  return await proxyActivities<Activities>({
    startToCloseTimeout: '10s',
    heartbeatTimeout: '2s',
    retry: { initialInterval: '10ms' },
  }).heartbeater(key, 6);
}

export async function cancelActivity(key: string): Promise<string> {
  const waiter = proxyActivities<Activities>({
    startToCloseTimeout: '10s',
    heartbeatTimeout: '1s',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    let go = false;
    setHandler(doneSignal, () => {
      go = true;
    });
    await CancellationScope.cancellable(async () => {
      const promise = waiter.waitForCancel(key);
      await condition(() => go);
      CancellationScope.current().cancel();
      await promise;
    });
    return 'not cancelled';
  } catch (error) {
    if (isCancellation(error)) return 'activity cancelled';
    throw error;
  }
}

export async function sleeper(ms: number): Promise<string> {
  await sleep(ms);
  return 'woke';
}

export async function timerCancel(): Promise<string> {
  const scope = new CancellationScope();
  const timer = scope.run(() => sleep('1 day'));
  await sleep(50);
  scope.cancel();
  try {
    await timer;
    return 'timer fired';
  } catch (error) {
    return isCancellation(error) ? 'timer cancelled' : 'other error';
  }
}

export const addSignal = defineSignal<[string]>('add');
export const doneSignal = defineSignal('done');
export const itemsQuery = defineQuery<string[]>('items');
export const addUpdate = defineUpdate<number, [string]>('addItem');

/** Collects signals until `done`; answers queries; accepts updates with non-empty items. */
export async function collector(): Promise<string[]> {
  const items: string[] = [];
  let done = false;
  setHandler(addSignal, (item) => {
    items.push(item);
  });
  setHandler(doneSignal, () => {
    done = true;
  });
  setHandler(itemsQuery, () => items);
  setHandler(
    addUpdate,
    async (item) => {
      await sleep(10);
      items.push(item);
      return items.length;
    },
    {
      validator: (item) => {
        if (!item) throw new Error('empty item rejected');
      },
    },
  );
  await condition(() => done);
  return items;
}

/** Waits a bit before installing its signal handler (signals arrive before the handler exists). */
export async function lateHandler(): Promise<string[]> {
  await sleep(200);
  const items: string[] = [];
  setHandler(addSignal, (item) => {
    items.push(item);
  });
  await condition(() => items.length >= 2);
  return items;
}

export async function child(value: string): Promise<string> {
  await sleep(10);
  return `child:${value}`;
}

export async function failingChild(): Promise<string> {
  await sleep(1);
  throw ApplicationFailure.nonRetryable('child failed', 'ChildBroke');
}

export async function parent(value: string): Promise<string[]> {
  const a = await executeChild(child, { args: [value], workflowId: `${workflowInfo().workflowId}-child-1` });
  const handle = await startChild(child, { args: [`${value}2`], workflowId: `${workflowInfo().workflowId}-child-2` });
  const b = await handle.result();
  let c = '';
  try {
    await executeChild(failingChild, { workflowId: `${workflowInfo().workflowId}-child-3` });
  } catch (error) {
    if (error instanceof ChildWorkflowFailure && error.cause instanceof ApplicationFailure) c = error.cause.message;
  }
  return [a, b, c];
}

export async function signalExternal(targetId: string): Promise<string> {
  await getExternalWorkflowHandle(targetId).signal(addSignal, 'from-workflow');
  await getExternalWorkflowHandle(targetId).signal(doneSignal);
  return 'signalled';
}

export async function continuer(remaining: number, total: number): Promise<number> {
  if (remaining > 0) await continueAsNew<typeof continuer>(remaining - 1, total + remaining);
  return total;
}

export async function waitForever(): Promise<string> {
  try {
    await sleep('30 days');
    return 'slept';
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => acts.echo('cleanup'));
    }
    throw error;
  }
}

export async function searchAndMemo(): Promise<string> {
  upsertSearchAttributes({ CustomKeywordField: ['updated'] });
  upsertMemo({ note: 'memo-updated' });
  if (patched('my-patch')) await sleep(1);
  return 'ok';
}

export async function daysLong(): Promise<string> {
  await sleep('3 days');
  const r = await acts.echo('after-days');
  await sleep('2 days');
  return r;
}

export async function failWorkflow(): Promise<string> {
  await sleep(1);
  throw ApplicationFailure.nonRetryable('workflow failed on purpose', 'Purposeful');
}

export async function stepsWithSignal(): Promise<string[]> {
  const log: string[] = [];
  let go = false;
  setHandler(doneSignal, () => {
    go = true;
  });
  log.push(await acts.echo('before'));
  await condition(() => go);
  log.push(await acts.echo('after'));
  return log;
}

export { ContinueAsNew };

export async function asyncActivity(activityId: string): Promise<string> {
  return await proxyActivities<Activities>({ startToCloseTimeout: '10s', activityId }).completeLater(activityId);
}

/** Fails its first two attempts (server-side workflow retries). */
export async function retryingWorkflow(): Promise<number> {
  await sleep(1);
  const { attempt } = workflowInfo();
  if (attempt < 3) throw ApplicationFailure.retryable(`workflow attempt ${attempt} fails`);
  return attempt;
}

export async function cronWorkflow(): Promise<string> {
  await sleep(1);
  return workflowInfo().runId;
}

/** Starts a child that waits forever and waits for it (cancelling this cancels the child). */
export async function parentOfWaiter(): Promise<string> {
  return await executeChild(waitForever, { workflowId: `${workflowInfo().workflowId}-waiter` });
}

/** Starts an async-completed activity, cancels it on `done` and waits for the cancellation to complete. */
export async function cancelAsyncActivity(activityId: string): Promise<string> {
  const act = proxyActivities<Activities>({
    startToCloseTimeout: '10s',
    activityId,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  let go = false;
  setHandler(doneSignal, () => {
    go = true;
  });
  try {
    await CancellationScope.cancellable(async () => {
      const promise = act.completeLater(activityId);
      await condition(() => go);
      CancellationScope.current().cancel();
      await promise;
    });
    return 'not cancelled';
  } catch (error) {
    return isCancellation(error) ? 'cancelled' : `other: ${String(error)}`;
  }
}

export const slowUpdate = defineUpdate<string, [number]>('slowUpdate');

/** Has an update handler that takes a while; finishes on `done`. */
export async function slowUpdater(): Promise<string> {
  let done = false;
  setHandler(slowUpdate, async (ms) => {
    await sleep(ms);
    return `slept ${ms}`;
  });
  setHandler(doneSignal, () => {
    done = true;
  });
  await condition(() => done);
  return 'done';
}

/** Starts a child whose id is taken by a running workflow; reports the failure. */
export async function childIdConflict(takenId: string): Promise<string> {
  try {
    await executeChild(child, { workflowId: takenId, args: ['never'] });
    return 'started';
  } catch (error) {
    return error instanceof WorkflowExecutionAlreadyStartedError ? 'already started' : `other: ${String(error)}`;
  }
}

/** Starts two children with ABANDON and REQUEST_CANCEL parent close policies, then completes. */
export async function parentClosePolicies(): Promise<string> {
  const id = workflowInfo().workflowId;
  await startChild(collector, { workflowId: `${id}-abandoned`, parentClosePolicy: 'ABANDON' });
  await startChild(waitForever, { workflowId: `${id}-cancelled`, parentClosePolicy: 'REQUEST_CANCEL' });
  await startChild(waitForever, { workflowId: `${id}-terminated`, parentClosePolicy: 'TERMINATE' });
  return 'parent done';
}

/** condition() with a timeout (a timer the workflow cancels when the condition holds first). */
export async function conditionTimeout(): Promise<string[]> {
  let go = false;
  setHandler(doneSignal, () => {
    go = true;
  });
  const first = await condition(() => go, 50);
  const second = await condition(() => go, '1 day');
  return [String(first), String(second)];
}

/** A local activity that fails twice before succeeding (retried by the worker, markers recorded). */
export async function retryingLocalActivity(key: string): Promise<string> {
  return await proxyLocalActivities<Activities>({
    startToCloseTimeout: '5s',
    retry: { initialInterval: '20ms', backoffCoefficient: 1 },
  }).failTimes(key, 2);
}

/** Counts `add` signals and `addItem` updates until `target`; returns the total. */
export async function counter(target: number): Promise<number> {
  let count = 0;
  setHandler(addSignal, () => {
    count++;
  });
  setHandler(addUpdate, async () => {
    await sleep(1);
    return ++count;
  });
  await condition(() => count >= target);
  return count;
}

/** Temporal's documented time-skipping example: a long timer races an activity that itself sleeps in test time. */
export async function raceActivityAndTimer(): Promise<string> {
  const acts = proxyActivities<{ longRunning(): Promise<string> }>({ startToCloseTimeout: '30 days' });
  return await Promise.race([sleep(500_000).then(() => 'timer'), acts.longRunning().then(() => 'activity')]);
}
