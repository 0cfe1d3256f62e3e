/**
 * Handlers of the execution workflow's messages (declared in ./messages):
 * signal delivery by update (its validator answers "not waiting" atomically,
 * hence the API's 409), plain Temporal signals of the same names (Temporal
 * UI, CLI), the reason a cancellation was requested with, and the state query.
 */
import { uuid4 } from '@temporalio/workflow';
import type { ExecutionRun } from './engine';
import type { OpenWait, OpenWaits } from './execution-waits';
import type { DeliveryResult, ExecutionPhase, ExecutionState, SignalDelivery } from './messages';

/** What the handlers read and write of a run besides its waits. */
export interface RunState {
  phase: ExecutionPhase;
  cancelReason?: string;
  /** Assigned once variables are resolved; the state query may run before that. */
  execution?: ExecutionRun;
}

/** The messages the validator rejects an answer with, which the API tells apart (executions/deliver-answer.ts). */
export const ALREADY_ANSWERED = 'already answered by this user';

/** The wait a delivery is for: the one the approval gate named, else the first plain wait on the name. */
function waitFor(waits: OpenWaits, delivery: SignalDelivery): OpenWait | undefined {
  return delivery.answer ? waits.byId(delivery.answer.waitId, delivery.name) : waits.match(delivery.name, delivery.correlationKey);
}

/** Update validator: rejects when nothing waits on the signal, or a user answers a wait twice (nothing is recorded in history then). */
export function requireWaitingOn(waits: OpenWaits): (delivery: SignalDelivery) => void {
  return (delivery) => {
    const wait = waitFor(waits, delivery);
    if (!wait) throw new Error(`the execution is not waiting on signal "${delivery.name}"`);
    if (wait.answers.some((given) => given.by === delivery.answer?.by)) throw new Error(ALREADY_ANSWERED);
  };
}

/** Update handler: releases the wait the validator found (a declared-answer wait: counts the answer). */
export function deliverSignal(waits: OpenWaits): (delivery: SignalDelivery) => DeliveryResult {
  return (delivery) => {
    const wait = waitFor(waits, delivery)!;
    if (delivery.answer && wait.answer) {
      const { payload } = delivery;
      const approved = !(typeof payload === 'object' && payload !== null && (payload as { approved?: unknown }).approved === false);
      const given = { by: delivery.answer.by, at: new Date().toISOString(), approved, signalId: delivery.signalId };
      const released = waits.answer(wait, given, delivery);
      const approvals = wait.answers.filter((answer) => answer.approved).length;
      return { delivered: true as const, signalId: delivery.signalId, stepId: wait.stepId, released, approvals };
    }
    wait.release({
      timedOut: false,
      name: delivery.name,
      payload: delivery.payload,
      signalId: delivery.signalId,
      receivedAt: new Date().toISOString(),
    });
    return { delivered: true as const, signalId: delivery.signalId, stepId: wait.stepId };
  };
}

/** Default signal handler: a plain signal releases a step waiting on its name (any correlation key). */
export function releaseByPlainSignal(waits: OpenWaits): (name: string, ...args: unknown[]) => void {
  return (name, ...args) => {
    const wait = waits.match(name);
    wait?.release({
      timedOut: false,
      name,
      payload: args[0] ?? null,
      signalId: `sig_${uuid4().replace(/-/g, '')}`,
      receivedAt: new Date().toISOString(),
    });
  };
}

/** Keeps the reason sent just before a cancellation request, for the record. */
export function recordCancelReason(run: RunState): (reason: string) => void {
  return (reason) => {
    if (typeof reason === 'string' && reason.trim() !== '') run.cancelReason = reason.slice(0, 1000);
  };
}

/** Every step still running is parked on an open wait (a signal or a webhook's callback). */
export function isWaiting(run: RunState, waits: OpenWaits): boolean {
  return run.phase === 'running' && waits.size > 0 && run.execution?.walker.running.length === waits.size;
}

/** State query (Temporal UI and CLI; the API reads what the run recorded): waiting when every step still running is parked. */
export function currentState(run: RunState, waits: OpenWaits): () => ExecutionState {
  return () => ({
    status: isWaiting(run, waits) ? 'waiting' : run.phase,
    steps: run.execution?.ctx.steps ?? {},
    variables: run.execution?.ctx.variables ?? {},
    currentSteps: [...(run.execution?.walker.running ?? [])],
    pendingWaits: waits.pending(),
  });
}
