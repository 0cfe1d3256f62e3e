/**
 * Messages of the execution workflow, shared by the workflow and the API
 * client: the update that delivers a signal to a waiting step (its validator
 * answers "not waiting" atomically, hence the API's 409), the state query,
 * and the reason a cancellation was requested with.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { StepRecord } from './engine';

export interface SignalDelivery {
  name: string;
  payload: unknown;
  signalId: string;
  /** When set, only a wait declared with this correlation key is released. */
  correlationKey?: string;
  /**
   * An answer to a declared-answer wait, let through by the API's approval gate (api/executions/approval-gate.ts):
   * the wait it answers and the user who answered. Such a wait takes no delivery without it.
   */
  answer?: { waitId: string; by: string };
}

export interface DeliveryResult {
  delivered: true;
  signalId: string;
  stepId: string;
  /** An answer to a declared-answer wait: whether it released the wait, and the approvals counted so far. */
  released?: boolean;
  approvals?: number;
}

export interface PendingWait {
  waitId: string;
  stepId: string;
  signalNames: string[];
  correlationKey?: string;
  since: string;
  timeoutAt?: string;
  /** Webhook waits: the one-time URL that releases the wait. */
  callbackUrl?: string;
}

export type ExecutionPhase = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface ExecutionState {
  status: ExecutionPhase;
  steps: Record<string, StepRecord>;
  variables: Record<string, unknown>;
  currentSteps: string[];
  pendingWaits: PendingWait[];
}

export const DELIVER_SIGNAL_UPDATE = 'deliverSignal';
export const deliverSignalUpdate = defineUpdate<DeliveryResult, [SignalDelivery]>(DELIVER_SIGNAL_UPDATE);
export const stateQuery = defineQuery<ExecutionState>('getState');
/**
 * Sent just before a cancellation request: Temporal's cancel carries no reason
 * a workflow can read, and signals are handled before the cancellation in the
 * same activation, so the record says why it was cancelled.
 */
export const cancelReasonSignal = defineSignal<[string]>('platform.cancelReason');
