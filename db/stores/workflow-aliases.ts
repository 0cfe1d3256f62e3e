/**
 * Aliases and their trigger bindings. Every mutation of an alias runs in a
 * transaction that first locks the workflow row (`lockWorkflow`), so
 * concurrent activate/deactivate/repoint calls on one workflow serialize.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { ALIAS_COLUMNS, BINDING_COLUMNS, q, type AliasRow, type BindingRow } from './workflow-rows';

type Db = DataSource | EntityManager;

export async function lockWorkflow(m: EntityManager, organizationId: string, ref: string): Promise<{ id: string } | undefined> {
  const rows = (await q(m, `SELECT id FROM workflows WHERE organization_id = $1 AND (id = $2 OR key = $2) FOR UPDATE`, [
    organizationId,
    ref,
  ])) as Array<{ id: string }>;
  return rows[0];
}

export async function listAliases(db: Db, workflowId: string): Promise<AliasRow[]> {
  return (await q(db, `SELECT ${ALIAS_COLUMNS} FROM workflow_aliases WHERE workflow_id = $1 ORDER BY name`, [workflowId])) as AliasRow[];
}

export async function findAlias(db: Db, workflowId: string, name: string): Promise<AliasRow | undefined> {
  const rows = (await q(db, `SELECT ${ALIAS_COLUMNS} FROM workflow_aliases WHERE workflow_id = $1 AND name = $2`, [
    workflowId,
    name,
  ])) as AliasRow[];
  return rows[0];
}

export async function upsertAlias(
  m: EntityManager,
  alias: { workflowId: string; name: string; revision: number; metadata: Record<string, unknown> | null | undefined; updatedBy: string },
): Promise<AliasRow> {
  const [row] = (await q(
    m,
    `INSERT INTO workflow_aliases (workflow_id, name, revision, active, metadata, updated_by) VALUES ($1, $2, $3, false, $4::jsonb, $5)
     ON CONFLICT (workflow_id, name) DO UPDATE SET revision = EXCLUDED.revision, updated_by = EXCLUDED.updated_by, updated_at = now(),
       metadata = CASE WHEN $6 THEN EXCLUDED.metadata ELSE workflow_aliases.metadata END
     RETURNING ${ALIAS_COLUMNS}`,
    [
      alias.workflowId,
      alias.name,
      alias.revision,
      alias.metadata ? JSON.stringify(alias.metadata) : null,
      alias.updatedBy,
      alias.metadata !== undefined,
    ],
  )) as AliasRow[];
  return row;
}

export async function setAliasActive(
  m: EntityManager,
  workflowId: string,
  name: string,
  active: boolean,
  updatedBy: string,
): Promise<AliasRow> {
  const [row] = (await q(
    m,
    `UPDATE workflow_aliases SET active = $3, updated_by = $4, updated_at = now() WHERE workflow_id = $1 AND name = $2 RETURNING ${ALIAS_COLUMNS}`,
    [workflowId, name, active, updatedBy],
  )) as AliasRow[];
  return row;
}

export async function deleteAlias(m: EntityManager, workflowId: string, name: string): Promise<void> {
  await q(m, `DELETE FROM workflow_aliases WHERE workflow_id = $1 AND name = $2`, [workflowId, name]);
}

export async function bindingsOf(db: Db, workflowId: string, aliasNames?: string[]): Promise<BindingRow[]> {
  return (await q(
    db,
    `SELECT ${BINDING_COLUMNS} FROM trigger_bindings WHERE workflow_id = $1 AND ($2::text[] IS NULL OR alias_name = ANY($2::text[])) ORDER BY alias_name, trigger_id`,
    [workflowId, aliasNames ?? null],
  )) as BindingRow[];
}

export type BindingWrite = Omit<BindingRow, 'activatedAt' | 'deactivatedAt'> & { activated: boolean };

/** Replaces every binding of an alias with the given set (one DELETE, one multi-row INSERT). */
export async function replaceBindings(m: EntityManager, workflowId: string, aliasName: string, bindings: BindingWrite[]): Promise<void> {
  await q(m, `DELETE FROM trigger_bindings WHERE workflow_id = $1 AND alias_name = $2`, [workflowId, aliasName]);
  if (bindings.length === 0) return;
  await q(
    m,
    `INSERT INTO trigger_bindings (workflow_id, alias_name, trigger_id, organization_id, plugin_type, revision, status, webhook_token, schedule_id,
       activated_at, last_error, runtime_metadata)
     SELECT $1, $2, b."triggerId", b."organizationId", b."pluginType", b.revision, b.status, b."webhookToken", b."scheduleId",
       CASE WHEN b.activated THEN now() END, b."lastError", b."runtimeMetadata"
     FROM jsonb_to_recordset($3::jsonb) AS b("triggerId" text, "organizationId" text, "pluginType" text, revision integer, status text,
       "webhookToken" text, "scheduleId" text, activated boolean, "lastError" jsonb, "runtimeMetadata" jsonb)`,
    [workflowId, aliasName, JSON.stringify(bindings)],
  );
}

/** Deactivation: bindings stay listed as inactive, with their webhook token and schedule cleared. */
export async function deactivateBindings(m: EntityManager, workflowId: string, aliasName: string): Promise<void> {
  await q(
    m,
    `UPDATE trigger_bindings SET status = 'inactive', webhook_token = NULL, schedule_id = NULL, deactivated_at = now(), updated_at = now()
     WHERE workflow_id = $1 AND alias_name = $2`,
    [workflowId, aliasName],
  );
}

export async function listBindings(
  db: Db,
  organizationId: string,
  filter: { workflowId?: string; status?: string },
): Promise<BindingRow[]> {
  return (await q(
    db,
    `SELECT ${BINDING_COLUMNS} FROM trigger_bindings WHERE organization_id = $1 AND ($2::text IS NULL OR workflow_id = $2)
       AND ($3::text IS NULL OR status = $3) ORDER BY workflow_id, alias_name, trigger_id`,
    [organizationId, filter.workflowId ?? null, filter.status ?? null],
  )) as BindingRow[];
}

/** The live binding a webhook token routes to, in any organization; undefined once deactivated or re-minted. */
export async function findBindingByWebhookToken(db: Db, token: string): Promise<BindingRow | undefined> {
  const rows = (await q(db, `SELECT ${BINDING_COLUMNS} FROM trigger_bindings WHERE webhook_token = $1 AND status = 'live'`, [
    token,
  ])) as BindingRow[];
  return rows[0];
}

/** Trigger ids and kinds of the given revisions (from the stored normalized definitions). */
export async function revisionTriggers(
  db: Db,
  workflowId: string,
  revisions: number[],
): Promise<Map<number, Array<{ id: string; pluginType: string }>>> {
  const rows = (await q(
    db,
    `SELECT revision, COALESCE((SELECT jsonb_agg(jsonb_build_object('id', t->'id', 'pluginType', t->'pluginType'))
       FROM jsonb_array_elements(CASE WHEN jsonb_typeof(definition->'triggers') = 'array' THEN definition->'triggers' ELSE '[]'::jsonb END) t), '[]'::jsonb) AS triggers
     FROM workflow_revisions WHERE workflow_id = $1 AND revision = ANY($2::int[])`,
    [workflowId, revisions],
  )) as Array<{ revision: number; triggers: Array<{ id: string; pluginType: string }> }>;
  return new Map(rows.map((row) => [row.revision, row.triggers]));
}
