/**
 * What a workflow may reach: a workflow acts as if it held a grant on its own
 * NRN. Routes check the caller's grants, but a running workflow acts with no
 * caller: a sub-workflow step names another workflow, `secrets.*` and `vars.*`
 * read folder entries, a recovery trigger receives other runs' failures. Were
 * those bounded by the organization alone, a team holding a grant on
 * `organization=1:account=7` would run, read and hear through its workflows what
 * its grants refuse it through the API (issue #25). So a workflow reaches a
 * target only when the target's NRN equals or lies beneath its own.
 *
 * The rule is written here once. executions/ and activities/ cannot import api/,
 * so the start-up code hands them {@link workflowReach} through their deps
 * (executions/deps.ts `WorkflowReach`); the API's own callers import it.
 */
import type { WorkflowReach } from '../../executions';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { contains, organizationNrn } from './nrn';

/** A workflow's NRN: the one its definition names, else its organization's (what publishing stores). */
export const workflowNrn = (workflow: Pick<WorkflowEntity, 'nrn' | 'organizationId'>): string =>
  workflow.nrn ?? organizationNrn(workflow.organizationId);

/** Whether a workflow at `workflowNrnText` may reach something at `targetNrn` (unparseable input reaches nothing). */
export function workflowReaches(workflowNrnText: string, targetNrn: string): boolean {
  return contains(workflowNrnText, targetNrn);
}

/** The rule as the engine layers are handed it. */
export const workflowReach: WorkflowReach = { nrnOf: workflowNrn, reaches: workflowReaches };
