/**
 * Bare Temporal workflows (TS SDK, no engine) for the benches' baseline columns: the same
 * shapes as the project's rows doing the same work. Each activity makes the call the
 * project's http-request step makes (a GET of the bench's local server, its JSON body
 * read), as a bare Temporal user would write it (bare-activities.ts).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

export interface BareActivities {
  /** GET `url` and answer its JSON body. */
  call(url: string): Promise<unknown>;
}

const ordinary = proxyActivities<BareActivities>({ startToCloseTimeout: '10s' });
const local = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '10s' });

/** `count` calls one after the other (each an ordinary activity: a task dispatch through the server). */
export async function sequentialActivities(count: number, url: string): Promise<void> {
  for (let i = 0; i < count; i++) await ordinary.call(url);
}

/** The same as local activities: run by the worker inside the workflow task, recorded as markers. */
export async function sequentialLocalActivities(count: number, url: string): Promise<void> {
  for (let i = 0; i < count; i++) await local.call(url);
}

/** Nothing at all: one workflow task and the result, the least a workflow costs the server. */
export async function trivialWorkflow(): Promise<void> {}

/** One call as an ordinary activity: the bare counterpart of a 1-step execution. */
export async function oneActivity(url: string): Promise<void> {
  await ordinary.call(url);
}

/** `count` calls started at once and awaited together: the bare counterpart of a 400-wide fan-out. */
export async function parallelActivities(count: number, url: string): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => ordinary.call(url)));
}
