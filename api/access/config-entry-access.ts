/**
 * Where a config entry is guarded (docs/security.md, "Where the engine checks"): a
 * workflow-scoped entry by its workflow's NRN, a folder entry by its own `nrn`
 * (default the organization's).
 */
import type { DataSource } from 'typeorm';
import { ConfigEntryRepository, type ConfigEntryView } from '../../db/repositories/config-entry-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import type { AuthContext } from '../http/auth';
import type { Permission } from '../http/permissions';
import { configEntryNotFound } from '../workflows/config-errors';
import { authorize } from './access';
import { organizationNrn } from './nrn';
import { workflowNrn } from './workflow-reach';

/** A config entry the caller may act on, and the NRN that guards it (what its audit events are about). */
export interface AuthorizedConfigEntry {
  row: ConfigEntryView;
  nrn: string;
}

/** The NRN that guards `entry`. */
export async function configEntryNrn(dataSource: DataSource, organizationId: string, entry: ConfigEntryView): Promise<string> {
  if (entry.workflowId === null) return entry.nrn ?? organizationNrn(organizationId);
  const workflow = await new WorkflowRepository(dataSource.manager).findOneBy({ organizationId, id: entry.workflowId });
  return workflow ? workflowNrn(workflow) : organizationNrn(organizationId);
}

/** The entry `id` of the caller's organization, once the caller holds `permission` where it is guarded. */
export async function authorizedConfigEntry(
  dataSource: DataSource,
  auth: AuthContext,
  id: string,
  permission: Permission,
): Promise<AuthorizedConfigEntry> {
  const row = await new ConfigEntryRepository(dataSource.manager).findEntry(auth.organizationId, id);
  if (!row) throw configEntryNotFound(id);
  const nrn = await configEntryNrn(dataSource, auth.organizationId, row);
  await authorize(dataSource, auth, permission, nrn, () => configEntryNotFound(id));
  return { row, nrn };
}
