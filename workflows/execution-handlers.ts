/**
 * Handlers of the execution workflow's messages (declared in ./messages):
 * signal delivery by update (its validator answers "not waiting" atomically,
 * hence the API's 409), plain Temporal signals of the same names (Temporal
 * UI, CLI), the reason a cancellation was requested with, and the state query.
 */
import { uuid4 } from '@temporalio/workflow';
import type { ExecutionRun } from './engine';
import type { OpenWaits } from './execution-waits';
import type { DeliveryResult, ExecutionPhase, ExecutionState, SignalDelivery } from './messages';

/** What the handlers read and write of a run besides its waits. */
export interface RunState {
  phase: ExecutionPhase;
  cancelReason?: string;
  /** Assigned once variables are resolved; the state query may run before that. */
  execution?: ExecutionRun;
}

/** Update validator: rejects when nothing waits on the signal (nothing is recorded in history then). */
export function requireWaitingOn(waits: OpenWaits): (delivery: SignalDelivery) => void {
  return (delivery) => {
    if (!waits.match(delivery.name, delivery.correlationKey)) throw new Error(`the execution is not waiting on signal "${delivery.name}"`);
  };
}

/** Update handler: releases the wait the validator found. */
export function deliverSignal(waits: OpenWaits): (delivery: SignalDelivery) => DeliveryResult {
  return (delivery) => {
    const wait = waits.match(delivery.name, delivery.correlationKey)!;
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
