/**
 * Delivers an answer to a declared-answer wait (issue 42), let through by the API's approval gate: the update
 * names the wait and who answered, and the workflow counts it (a rejection, or the last approval needed,
 * releases the wait). Unlike a plain delivery, the outcome says whether the wait was released, and a second
 * answer of the same user is told apart from "not waiting".
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ALREADY_ANSWERED } from '../workflows/execution-handlers';
import { deliverSignalUpdate } from '../workflows/messages';
import { DELIVERY_DEADLINE_MS, notWaitingOrUnavailable } from './deliver-signal';

export type AnswerOutcome = { released: boolean; approvals: number } | 'not-waiting' | 'already-answered';

export async function deliverAnswer(
  client: Client,
  executionId: string,
  runId: string | null,
  request: { name: string; payload: unknown; signalId: string; answer: { waitId: string; by: string } },
): Promise<AnswerOutcome> {
  try {
    const handle = client.workflow.getHandle(executionId, undefined, { firstExecutionRunId: runId ?? undefined });
    const result = await client.withDeadline(Date.now() + DELIVERY_DEADLINE_MS, () =>
      handle.executeUpdate(deliverSignalUpdate, { args: [request], updateId: request.signalId }),
    );
    return { released: result.released ?? true, approvals: result.approvals ?? 0 };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause?.message === ALREADY_ANSWERED) return 'already-answered';
    return notWaitingOrUnavailable(error);
  }
}
