/**
 * When a declared-answer wait with `notify` opens, the workflow asks the `notifyWait` activity to tell people
 * (activities/approval-notice.ts). The run does not wait for it and never fails for it: a notification that
 * cannot be sent after its retries leaves the wait open as it was (the inbox still lists it).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExecutionInput } from './engine';
import type { OpenWait } from './execution-waits';

export function notifyOnOpen(input: ExecutionInput): (wait: OpenWait) => void {
  const { notifyWait } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 5, initialInterval: '2 seconds', backoffCoefficient: 2 },
  });
  return (wait) => {
    const notify = wait.answer?.notify;
    if (!notify) return;
    void notifyWait({
      executionId: input.executionId,
      workflowId: input.workflowId,
      waitId: wait.waitId,
      stepId: wait.stepId,
      title: wait.answer?.title,
      url: notify.url,
      headers: notify.headers,
    }).catch(() => undefined);
  };
}
