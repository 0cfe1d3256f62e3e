/** Entities to API shapes: optional fields are omitted rather than null, timestamps are ISO strings. */
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { WorkflowEntity } from '../../db/entities/workflow';
import type { WorkflowAliasEntity } from '../../db/entities/workflow-alias';
import type { ListedRevision } from '../../db/repositories/workflow-revision-repository';
import { iso } from '../http/iso-date';

export function workflowJson(row: WorkflowEntity): Record<string, unknown> {
  return {
    id: row.id,
    ...(row.key !== null ? { key: row.key } : {}),
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    path: row.path,
    organizationId: row.organizationId,
    ...(row.nrn !== null ? { nrn: row.nrn } : {}),
    ...(row.metadata !== null ? { metadata: row.metadata } : {}),
    latestRevision: row.latestRevision,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function revisionJson(row: ListedRevision): Record<string, unknown> {
  return {
    workflowId: row.workflowId,
    revision: row.revision,
    definition: row.definition ?? null,
    createdAt: iso(row.createdAt),
    ...(row.createdBy !== null ? { createdBy: row.createdBy } : {}),
    ...(row.releaseNotes !== null ? { releaseNotes: row.releaseNotes } : {}),
    ...(row.semanticVersion !== null ? { semanticVersion: row.semanticVersion } : {}),
    engineVersion: row.engineVersion,
    // Whether the text it was published from is kept (GET …/revisions/{n}/source), and as what.
    ...(row.sourceFormat !== null ? { sourceFormat: row.sourceFormat } : {}),
  };
}

/** Webhook URLs are computed on every read from the configured public base URL. */
export function triggerStateJson(binding: TriggerBindingEntity, publicBaseUrl: string): Record<string, unknown> {
  const runtimeMetadata: Record<string, unknown> = { ...(binding.runtimeMetadata ?? {}) };
  if (binding.webhookToken !== null && binding.status === 'live')
    runtimeMetadata.webhookUrl = `${publicBaseUrl}/workflows/webhooks/${binding.webhookToken}`;
  return {
    status: binding.status,
    pluginType: binding.pluginType,
    ...(binding.activatedAt ? { activatedAt: iso(binding.activatedAt) } : {}),
    ...(binding.deactivatedAt ? { deactivatedAt: iso(binding.deactivatedAt) } : {}),
    ...(binding.lastError ? { lastError: binding.lastError } : {}),
    runtimeMetadata,
  };
}

export interface TriggerRef {
  id: string;
  pluginType: string;
}

/** Triggers of the alias revision that were never registered show as inactive. */
export function aliasJson(
  row: WorkflowAliasEntity,
  bindings: TriggerBindingEntity[],
  publicBaseUrl: string,
  triggers: TriggerRef[] = [],
): Record<string, unknown> {
  const triggerStates: Record<string, unknown> = {};
  for (const trigger of triggers) triggerStates[trigger.id] = { status: 'inactive', pluginType: trigger.pluginType, runtimeMetadata: {} };
  for (const binding of bindings) {
    if (binding.aliasName === row.name) triggerStates[binding.triggerId] = triggerStateJson(binding, publicBaseUrl);
  }
  return {
    workflowId: row.workflowId,
    name: row.name,
    revision: row.revision,
    active: row.active,
    updatedAt: iso(row.updatedAt),
    ...(row.updatedBy !== null ? { updatedBy: row.updatedBy } : {}),
    ...(row.metadata !== null ? { metadata: row.metadata } : {}),
    ...(row.flowControl ? { flowControl: row.flowControl } : {}),
    triggerStates,
  };
}
