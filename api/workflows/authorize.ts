/**
 * The engine's authorization, through the one access module (api/access): a
 * workflow is guarded by its NRN (the `nrn` column; by default its
 * organization), an execution by its workflow's NRN, a config entry by its
 * workflow's NRN (a workflow-scoped entry) or its own `nrn` (a folder entry,
 * default the organization's), and operations on the
 * organization as a whole (lists, creating with no NRN, plugins, signals by
 * correlation key) by the organization's NRN.
 *
 * No grant in the organization answers the route's not-found; a missing
 * permission answers 403. Grants are read on every request, so a revoked grant
 * takes effect on the next one (publishing a new workflow may skip the read: its
 * statement checks the grants it was decided on; api/access/recent-access.ts).
 */
import type { DataSource } from 'typeorm';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository, type Runnable, type RunnableMiss } from '../../db/repositories/workflow-revision-repository';
import { accessFromRead, authorize, callerKeyOf } from '../access/access';
import { organizationNrn } from '../access/nrn';
import { workflowNrn } from '../access/workflow-reach';
import type { AuthContext } from '../http/auth';
import { HttpError } from '../http/errors';
import type { Permission } from '../http/permissions';
import { workflowNotFound } from './errors';

export { workflowNrn };

/** The problem+json not-found of an organization-wide engine operation. */
export const organizationNotFound = (organizationId: string) => (): HttpError =>
  new HttpError(404, 'organization-not-found', `Organization ${organizationId} does not exist or you hold no role in it.`);

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

/** Requires `permission` on the caller's whole organization (operations with no narrower target). */
export async function authorizeInOrganization(
  dataSource: DataSource,
  auth: AuthContext,
  permission: Permission,
  notFound: () => HttpError = organizationNotFound(auth.organizationId),
): Promise<void> {
  await authorize(dataSource, auth, permission, organizationNrn(auth.organizationId), notFound);
}
