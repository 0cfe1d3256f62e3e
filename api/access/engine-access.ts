/**
 * The engine's authorized reads, through the one access module: a workflow is
 * guarded by its NRN (the `nrn` column; by default its organization), an
 * execution by its workflow's NRN (the organization's once the workflow was
 * deleted), and operations on the organization as a whole (lists, creating
 * with no NRN, plugins, signals by correlation key) by the organization's NRN.
 *
 * No grant in the organization answers the route's not-found; a missing
 * permission answers 403. Grants are read on every request, so a revoked grant
 * takes effect on the next one (publishing a new workflow may skip the read: its
 * statement checks the grants it was decided on; ./recent-access.ts).
 */
import type { DataSource } from 'typeorm';
import type { ExecutionEntity } from '../../db/entities/execution';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository, type Runnable, type RunnableMiss } from '../../db/repositories/workflow-revision-repository';
import { executionNotFound } from '../executions/errors';
import type { AuthContext } from '../http/auth';
import type { HttpError } from '../http/errors';
import type { Permission } from '../http/permissions';
import { organizationNotFound, workflowNotFound } from '../workflows/errors';
import { accessFromRead, authorize, callerKeyOf, type Access } from './access';
import { organizationNrn } from './nrn';
import { workflowNrn } from './workflow-reach';

/** An execution the caller may act on: its row, the NRN that guards it (what its audit events are about), and the access that let it through. */
export interface AuthorizedExecution {
  row: ExecutionEntity;
  nrn: string;
  access: Access;
}

/** The workflow `ref` of the caller's organization, once the caller holds `permission` on its NRN. */
export async function authorizedWorkflow(
  dataSource: DataSource,
  auth: AuthContext,
  ref: string,
  permission: Permission,
): Promise<WorkflowEntity> {
  const workflow = await new WorkflowRepository(dataSource.manager).findByRef(auth.organizationId, ref);
  if (!workflow) throw workflowNotFound(ref);
  await authorize(dataSource, auth, permission, workflowNrn(workflow), () => workflowNotFound(ref));
  return workflow;
}

/**
 * The revision an execution of workflow `ref` runs ({@link WorkflowRevisionRepository.findRunnable}), once the
 * caller holds `permission` on the workflow's NRN: the answers of authorizedWorkflow then findRunnable (not found,
 * 401, 403, then an alias or revision miss), from one statement that reads the workflow, its revision and the
 * caller's grants (a start's reads cost one round trip).
 */
export async function authorizedRunnable(
  dataSource: DataSource,
  auth: AuthContext,
  ref: string,
  permission: Permission,
  choice: { alias?: string; revision?: number },
): Promise<Runnable | Exclude<RunnableMiss, 'workflow-not-found'>> {
  const read = await new WorkflowRevisionRepository(dataSource.manager).findRunnableWithGrants(callerKeyOf(auth), ref, choice);
  if (!read) throw workflowNotFound(ref);
  (await accessFromRead(dataSource, auth, read.grants)).require(permission, workflowNrn(read.workflow), () => workflowNotFound(ref));
  return read.found;
}

/**
 * The execution `id` of the caller's organization, once the caller holds each of
 * `permissions` (in order) on its workflow's NRN. Another organization's execution
 * is indistinguishable from a missing one.
 */
export async function authorizedExecution(
  dataSource: DataSource,
  auth: AuthContext,
  id: string,
  permissions: readonly Permission[],
): Promise<AuthorizedExecution> {
  // The row and the caller's grants in one statement: a polling client pays one round trip per read.
  const { grants, found } = await new ExecutionRepository(dataSource.manager).findWithWorkflowNrnAndGrants(callerKeyOf(auth), id);
  const access = await accessFromRead(dataSource, auth, grants);
  if (!found) throw executionNotFound(id);
  const nrn = found.workflow
    ? workflowNrn({ nrn: found.workflow.nrn, organizationId: auth.organizationId })
    : organizationNrn(auth.organizationId);
  for (const permission of permissions) access.require(permission, nrn, () => executionNotFound(id));
  return { row: found.row, nrn, access };
}

/** Requires `permission` on the caller's whole organization (operations with no narrower target). */
export function authorizeInOrganization(
  dataSource: DataSource,
  auth: AuthContext,
  permission: Permission,
  notFound: () => HttpError = () => organizationNotFound(auth.organizationId),
): Promise<Access> {
  return authorize(dataSource, auth, permission, organizationNrn(auth.organizationId), notFound);
}
