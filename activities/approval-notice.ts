/**
 * `notifyWait`: the outbound call a declared-answer wait's `notify` asks for when the run starts waiting on
 * people (issue 42): a JSON POST through the egress rules (as `http-request`: host and every resolved address
 * checked, no redirects followed), carrying a link to the console's answer page. Sent once per wait whatever
 * the activity's retries: the wait is claimed in `wait_notices` before the send, and the claim given back
 * only when the send failed (so a retry sends, and a repeat after success sends nothing).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { WaitNoticeRepository } from '../db/repositories/wait-notice-repository';
import { egressFetch } from './egress/egress-fetch';
import { EgressDenied, type EgressPolicy } from './egress/policy';

/** What the workflow sends when a wait with `notify` opens. */
export interface WaitNotice {
  executionId: string;
  workflowId: string;
  waitId: string;
  stepId: string;
  title?: string;
  url: string;
  headers?: Record<string, string>;
}

const NOTICE_TIMEOUT_MS = 10_000;

/** The console page where the wait is answered. */
export const answerPageUrl = (publicBaseUrl: string, executionId: string, waitId: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}/console/approvals/${encodeURIComponent(executionId)}/${encodeURIComponent(waitId)}`;

export function waitNoticeActivity(deps: { dataSource: DataSource; egress: EgressPolicy; publicBaseUrl?: string }) {
  return async function notifyWait(notice: WaitNotice): Promise<{ sent: boolean }> {
    const notices = new WaitNoticeRepository(deps.dataSource.manager);
    if (!(await notices.claim(notice.executionId, notice.waitId))) return { sent: false };
    const link = answerPageUrl(deps.publicBaseUrl ?? '', notice.executionId, notice.waitId);
    const title = notice.title ?? `Step ${notice.stepId} is waiting for an answer`;
    const body = JSON.stringify({
      text: `${title}: ${link}`,
      title,
      link,
      executionId: notice.executionId,
      workflowId: notice.workflowId,
      stepId: notice.stepId,
      waitId: notice.waitId,
    });
    try {
      const response = await egressFetch(deps.egress, new URL(notice.url), {
        method: 'POST',
        headers: { ...notice.headers, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(NOTICE_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.status >= 300) throw ApplicationFailure.retryable(`notify: HTTP ${response.status}`, 'NOTIFY_FAILED');
      return { sent: true };
    } catch (error) {
      await notices.release(notice.executionId, notice.waitId);
      if (error instanceof EgressDenied) throw ApplicationFailure.nonRetryable(error.message, 'HTTP_EGRESS_DENIED');
      throw error;
    }
  };
}
