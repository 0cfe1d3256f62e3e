/**
 * Bare Temporal workflows (TS SDK, no engine) for the end-to-end bench's baseline column:
 * the same shapes as the project's rows, with activities that do nothing (the scale-out
 * bench runs them too).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

export interface BareActivities {
  noop(): Promise<void>;
}

const ordinary = proxyActivities<BareActivities>({ startToCloseTimeout: '10s' });
const local = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '10s' });

/** `count` no-op activities one after the other (each an ordinary activity: a task dispatch through the server). */
export async function sequentialActivities(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await ordinary.noop();
}

/** The same as local activities: run by the worker inside the workflow task, recorded as markers. */
export async function sequentialLocalActivities(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await local.noop();
}

/** Nothing at all: one workflow task and the result, the least a workflow costs the server. */
export async function trivialWorkflow(): Promise<void> {}

/** One ordinary activity: the bare counterpart of a 1-step execution. */
export async function oneActivity(): Promise<void> {
  await ordinary.noop();
}

/** `count` no-op activities started at once and awaited together: the bare counterpart of a 400-wide fan-out. */
export async function parallelActivities(count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => ordinary.noop()));
}
