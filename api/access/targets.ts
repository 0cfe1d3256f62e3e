/**
 * What a route's permission is checked on, when the route declares it
 * (`access: { permission, on }` in api/http/route.ts): the route layer resolves
 * the target here, before the handler runs, and hands the authorized row to the
 * handler as `target`. Each target is read with the caller's grants as it was
 * before targets were declared (the execution in one statement with them), and
 * answers the same 404 (nothing in the organization, or no such row) and 403
 * (a missing permission inside it).
 *
 * The target's id is the route's `{id}` path parameter. Routes whose target is
 * named by the body, an alias or a revision choice, or whose answer decides who
 * may act (approvals), declare no `on` and check in their handlers, through the
 * helpers of this folder.
 */
import type { DataSource } from 'typeorm';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { organizationNotFound as adminOrganizationNotFound } from '../audit/errors';
import type { AuthContext } from '../http/auth';
import type { Dialect } from '../http/dialects';
import type { Permission } from '../http/permissions';
import type { Access } from './access';
import { authorizedConfigEntry, type AuthorizedConfigEntry } from './config-entry-access';
import { authorizedExecution, authorizedWorkflow, authorizeInOrganization, type AuthorizedExecution } from './engine-access';

/** The authorized row each kind of target hands the handler. */
export interface AccessTargets {
  /** The caller's organization as a whole (lists, creates, catalogs): the caller's access, for finer filters. */
  organization: Access;
  /** The workflow `{id}` (id or key). */
  workflow: WorkflowEntity;
  /** The execution `{id}`, with the NRN that guards it. */
  execution: AuthorizedExecution;
  /** The config entry `{id}`, with the NRN that guards it. */
  'config-entry': AuthorizedConfigEntry;
}

export type TargetKind = keyof AccessTargets;

export const TARGET_KINDS: readonly TargetKind[] = ['organization', 'workflow', 'execution', 'config-entry'];

export interface TargetRequest {
  auth: AuthContext;
  permission: Permission;
  /** Permissions needed on the same target before `permission` (an execution's rerun reads it, then executes it). */
  also: readonly Permission[];
  params: Record<string, unknown>;
  /** The route family's dialect: an organization's not-found is worded in it. */
  dialect?: Dialect;
}

export type TargetResolver = (on: TargetKind, request: TargetRequest) => Promise<AccessTargets[TargetKind]>;

/** The resolver the areas stamp on their routes (`withAccessTargets`). */
export function accessTargets(dataSource: DataSource): TargetResolver {
  return async (on, { auth, permission, also, params, dialect }) => {
    const id = String(params.id);
    switch (on) {
      case 'organization':
        return authorizeInOrganization(
          dataSource,
          auth,
          permission,
          dialect === 'admin' ? () => adminOrganizationNotFound(auth.organizationId) : undefined,
        );
      case 'workflow':
        return authorizedWorkflow(dataSource, auth, id, permission);
      case 'execution':
        return authorizedExecution(dataSource, auth, id, [...also, permission]);
      case 'config-entry':
        return authorizedConfigEntry(dataSource, auth, id, permission);
    }
  };
}
