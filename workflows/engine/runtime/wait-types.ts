/**
 * What a step asks its host for when it waits (a signal, a webhook, a declared answer) or starts a
 * sub-workflow, what comes back, and the events a step reports as it runs. Plain data, types only; part of
 * the runtime's type vocabulary (./types.ts).
 */
import type { StepRecord } from './record-types';

export interface WaitRequest {
  stepId: string;
  /** Names that release the wait. */
  signalNames: string[];
  correlationKey?: string;
  timeoutMs?: number;
  /** For webhook waits: the one-time URL that releases the wait (shown with the pending waits). */
  callbackUrl?: string;
  /** A wait that says who may answer and what (../inline/declared-answer.ts); absent: any signal of its names releases it. */
  answer?: WaitAnswer;
}

/** A wait's declared answer, rendered from the run: the API enforces it (approvers, form); the workflow counts approvals. */
export interface WaitAnswer {
  title?: string;
  description?: string;
  /** A JSON Schema for the payload (compiled at publish by the API). */
  form?: Record<string, unknown>;
  /** Absent: whoever may signal the run may answer (as a plain wait). */
  approvers?: { roles: string[]; users: string[]; nrn?: string };
  excludeStarter: boolean;
  /** Distinct approvals before the wait is released; any `approved: false` releases it at once. */
  required: number;
  /** An outbound call when the wait opens (through the egress rules), sent once. */
  notify?: { url: string; headers?: Record<string, string> };
}

/** One answer to a declared-answer wait, as the step's outputs and the timeline show it. */
export interface WaitAnswerGiven {
  /** The user id of who answered. */
  by: string;
  at: string;
  approved: boolean;
  signalId: string;
}

export interface WaitResult {
  timedOut: boolean;
  name?: string;
  payload?: unknown;
  signalId?: string;
  receivedAt?: string;
  /** A declared-answer wait: every answer counted, oldest first. */
  answers?: WaitAnswerGiven[];
}

export interface ChildRequest {
  stepId: string;
  itemIndex: number;
  workflowId: string;
  alias?: string;
  revision?: number;
  inputs: Record<string, unknown>;
  waitForCompletion: boolean;
  correlationKey?: string;
}

export interface ChildResult {
  executionId: string;
  outputs: Record<string, unknown>;
}

export type StepEvent =
  | { type: 'step.started'; stepId: string; run: number; at: string }
  | { type: 'step.completed'; stepId: string; run: number; at: string; record: StepRecord }
  | { type: 'step.failed'; stepId: string; run: number; at: string; record: StepRecord }
  /** `run` (and `startedAt`): a step that started and was skipped by its `condition`; absent: skipped without starting (a dead path). */
  | { type: 'step.skipped'; stepId: string; at: string; run?: number; startedAt?: string }
  /** Open waits are persisted so a signal by correlation key can find its execution without asking every running workflow. */
  | {
      type: 'wait.started';
      stepId: string;
      waitId: string;
      signalNames: string[];
      correlationKey?: string;
      at: string;
      timeoutAt?: string;
      /** A webhook wait's callback URL, unsigned (the API signs it when it shows the wait). */
      callbackUrl?: string;
      /** A declared-answer wait: who may answer and what (the API's approval gate and inbox read it). */
      answer?: WaitAnswer;
    }
  /** One answer counted by a declared-answer wait (the timeline's "who answered, and when"). */
  | ({ type: 'wait.answered'; stepId: string; waitId: string } & WaitAnswerGiven)
  | { type: 'wait.ended'; stepId: string; waitId: string; at: string };
