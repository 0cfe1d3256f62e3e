/** Service specifications and their action specifications. */
import type { EntityManager } from 'typeorm';

export interface ServiceSpecRecord {
  id: string;
  organization_id: number;
  name: string;
  slug: string;
  visible_to: string[];
  attributes: { schema: Record<string, unknown>; values: Record<string, unknown> };
  selectors: Record<string, unknown>;
  type: 'dependency' | 'scope';
  dimensions: Record<string, { required: boolean; values?: string[] }>;
  assignable_to: 'any' | 'dimension' | 'scope';
  use_default_actions: boolean;
  use_default_naming: boolean;
  scopes: { provider?: { values: string[] } } | null;
  package_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type ServiceSpecFields = Omit<ServiceSpecRecord, 'id' | 'created_at' | 'updated_at'>;

export interface ActionSpecRecord {
  id: string;
  service_specification_id: string;
  name: string;
  slug: string;
  type: 'create' | 'update' | 'delete' | 'custom';
  parameters: Record<string, unknown>;
  results: Record<string, unknown>;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, organization_id::float8 AS organization_id, name, slug, visible_to, attributes, selectors, type, dimensions,
  assignable_to, use_default_actions, use_default_naming, scopes, package_id, created_at, updated_at`;
const values = (f: ServiceSpecFields) => [
  f.organization_id,
  f.name,
  f.slug,
  f.visible_to,
  JSON.stringify(f.attributes),
  JSON.stringify(f.selectors),
  f.type,
  JSON.stringify(f.dimensions),
  f.assignable_to,
  f.use_default_actions,
  f.use_default_naming,
  f.scopes === null ? null : JSON.stringify(f.scopes),
  f.package_id,
];

export async function insertServiceSpec(manager: EntityManager, fields: ServiceSpecFields): Promise<ServiceSpecRecord> {
  const rows: ServiceSpecRecord[] = await manager.query(
    `INSERT INTO service_specifications (organization_id, name, slug, visible_to, attributes, selectors, type, dimensions,
       assignable_to, use_default_actions, use_default_naming, scopes, package_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
    values(fields),
  );
  return rows[0];
}

export async function updateServiceSpec(manager: EntityManager, id: string, fields: ServiceSpecFields): Promise<ServiceSpecRecord> {
  const [rows]: [ServiceSpecRecord[], number] = await manager.query(
    `UPDATE service_specifications SET organization_id = $1, name = $2, slug = $3, visible_to = $4, attributes = $5, selectors = $6, type = $7,
       dimensions = $8, assignable_to = $9, use_default_actions = $10, use_default_naming = $11, scopes = $12, package_id = $13, updated_at = now()
     WHERE id = $14 RETURNING ${COLUMNS}`,
    [...values(fields), id],
  );
  return rows[0];
}

export async function findServiceSpec(manager: EntityManager, id: string): Promise<ServiceSpecRecord | undefined> {
  const rows: ServiceSpecRecord[] = await manager.query(`SELECT ${COLUMNS} FROM service_specifications WHERE id = $1`, [id]);
  return rows[0];
}

export async function serviceSpecSlugsLike(manager: EntityManager, organizationId: number, base: string): Promise<Set<string>> {
  const rows: Array<{ slug: string }> = await manager.query(
    `SELECT slug FROM service_specifications WHERE organization_id = $1 AND left(slug, $3) = $2`,
    [organizationId, base, base.length],
  );
  return new Set(rows.map((r) => r.slug));
}

export interface ServiceSpecFilter {
  organizationId: number;
  /** When set: only specifications whose visible_to holds one of these NRNs. */
  visibleAt?: string[];
  type?: string;
  name?: string;
  slug?: string;
  offset: number;
  limit: number;
}

export async function listServiceSpecs(
  manager: EntityManager,
  f: ServiceSpecFilter,
): Promise<{ total: number; rows: ServiceSpecRecord[] }> {
  const rows: Array<ServiceSpecRecord & { total: number }> = await manager.query(
    `SELECT ${COLUMNS}, count(*) OVER ()::float8 AS total FROM service_specifications
      WHERE organization_id = $1
        AND ($2::text[] IS NULL OR visible_to && $2::text[])
        AND ($3::text IS NULL OR type = $3)
        AND ($4::text IS NULL OR name ILIKE '%' || replace(replace(replace($4, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%')
        AND ($5::text IS NULL OR slug = $5)
      ORDER BY created_at, id OFFSET $6 LIMIT $7`,
    [f.organizationId, f.visibleAt ?? null, f.type ?? null, f.name ?? null, f.slug ?? null, f.offset, f.limit],
  );
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && f.offset > 0) {
    // Past the end the window function has no row to ride on; count separately.
    total = (await listServiceSpecs(manager, { ...f, offset: 0, limit: 1 })).total;
  }
  return { total, rows: rows.map(({ total: _t, ...row }) => row) };
}

export async function deleteServiceSpec(manager: EntityManager, id: string): Promise<void> {
  await manager.query(`DELETE FROM service_specifications WHERE id = $1`, [id]);
}

export async function serviceCounts(manager: EntityManager, specId: string): Promise<{ services: number; bound: number }> {
  const rows: Array<{ services: number; bound: number }> = await manager.query(
    `SELECT count(*)::int AS services,
            count(*) FILTER (WHERE package_revision_id IS NOT NULL OR desired_package_revision_id IS NOT NULL)::int AS bound
       FROM services WHERE specification_id = $1`,
    [specId],
  );
  return rows[0];
}

/** Which of the ids name scope specifications of the organization. */
export async function existingScopeSpecs(manager: EntityManager, organizationId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM service_specifications WHERE organization_id = $1 AND type = 'scope' AND id = ANY($2::uuid[])`,
    [organizationId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

const ACTION_COLUMNS = 'id, service_specification_id, name, slug, type, parameters, results, is_default, created_at, updated_at';

export interface ActionSpecFields {
  name: string;
  slug: string;
  type: ActionSpecRecord['type'];
  parameters: Record<string, unknown>;
  results: Record<string, unknown>;
}

/** Writes the default create/update/delete action specifications, keeping their ids when they exist. */
export async function upsertDefaultActionSpecs(manager: EntityManager, specId: string, specs: ActionSpecFields[]): Promise<void> {
  await manager.query(
    `INSERT INTO action_specifications (service_specification_id, name, slug, type, parameters, results, is_default)
     SELECT $1, w.name, w.slug, w.type, w.parameters, w.results, true
       FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) AS w(name, slug, type, parameters, results)
     ON CONFLICT ON CONSTRAINT action_specifications_slug_unique DO UPDATE
       SET name = EXCLUDED.name, parameters = EXCLUDED.parameters, results = EXCLUDED.results, is_default = true, updated_at = now()`,
    [
      specId,
      specs.map((s) => s.name),
      specs.map((s) => s.slug),
      specs.map((s) => s.type),
      specs.map((s) => JSON.stringify(s.parameters)),
      specs.map((s) => JSON.stringify(s.results)),
    ],
  );
}

/** Drops default action specifications no action refers to (when defaults are switched off). */
export async function removeUnusedDefaultActionSpecs(manager: EntityManager, specId: string): Promise<void> {
  await manager.query(
    `DELETE FROM action_specifications a WHERE a.service_specification_id = $1 AND a.is_default
        AND NOT EXISTS (SELECT 1 FROM service_actions s WHERE s.specification_id = a.id OR s.desired_specification_id = a.id)`,
    [specId],
  );
}

export async function insertActionSpec(manager: EntityManager, specId: string, fields: ActionSpecFields): Promise<ActionSpecRecord> {
  const rows: ActionSpecRecord[] = await manager.query(
    `INSERT INTO action_specifications (service_specification_id, name, slug, type, parameters, results, is_default)
     VALUES ($1, $2, $3, $4, $5, $6, false) RETURNING ${ACTION_COLUMNS}`,
    [specId, fields.name, fields.slug, fields.type, JSON.stringify(fields.parameters), JSON.stringify(fields.results)],
  );
  return rows[0];
}

export async function listActionSpecs(manager: EntityManager, specId: string): Promise<ActionSpecRecord[]> {
  return manager.query(
    `SELECT ${ACTION_COLUMNS} FROM action_specifications WHERE service_specification_id = $1 ORDER BY created_at, slug`,
    [specId],
  );
}

export async function findActionSpec(manager: EntityManager, id: string): Promise<ActionSpecRecord | undefined> {
  const rows: ActionSpecRecord[] = await manager.query(`SELECT ${ACTION_COLUMNS} FROM action_specifications WHERE id = $1`, [id]);
  return rows[0];
}
