/** Services (instances of service specifications) and their actions. */
import type { EntityManager } from 'typeorm';

export interface ServiceRecord {
  id: string;
  organization_id: number;
  name: string;
  slug: string;
  specification_id: string;
  entity_nrn: string;
  status: string;
  attributes: Record<string, unknown>;
  dimensions: Record<string, string>;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface ActionMessage {
  level: string;
  message: string;
  timestamp: number;
}

export interface ServiceActionRecord {
  id: string;
  service_id: string;
  name: string;
  slug: string;
  specification_id: string;
  desired_specification_id: string | null;
  status: string;
  parameters: Record<string, unknown>;
  results: Record<string, unknown>;
  messages: ActionMessage[];
  link_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const SERVICE_COLUMNS = `id, organization_id::float8 AS organization_id, name, slug, specification_id, entity_nrn, status, attributes, dimensions,
  created_by, created_at, updated_at`;
const ACTION_COLUMNS = `id, service_id, name, slug, specification_id, desired_specification_id, status, parameters, results, messages, link_id,
  created_by, created_at, updated_at`;

export async function insertService(
  manager: EntityManager,
  s: Pick<
    ServiceRecord,
    'organization_id' | 'name' | 'slug' | 'specification_id' | 'entity_nrn' | 'status' | 'attributes' | 'dimensions' | 'created_by'
  >,
): Promise<ServiceRecord> {
  const rows: ServiceRecord[] = await manager.query(
    `INSERT INTO services (organization_id, name, slug, specification_id, entity_nrn, status, attributes, dimensions, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${SERVICE_COLUMNS}`,
    [
      s.organization_id,
      s.name,
      s.slug,
      s.specification_id,
      s.entity_nrn,
      s.status,
      JSON.stringify(s.attributes),
      JSON.stringify(s.dimensions),
      s.created_by,
    ],
  );
  return rows[0];
}

export async function findService(manager: EntityManager, id: string): Promise<ServiceRecord | undefined> {
  const rows: ServiceRecord[] = await manager.query(`SELECT ${SERVICE_COLUMNS} FROM services WHERE id = $1`, [id]);
  return rows[0];
}

export async function insertAction(
  manager: EntityManager,
  a: Pick<ServiceActionRecord, 'service_id' | 'name' | 'slug' | 'specification_id' | 'status' | 'parameters' | 'created_by'>,
): Promise<ServiceActionRecord> {
  const rows: ServiceActionRecord[] = await manager.query(
    `INSERT INTO service_actions (service_id, name, slug, specification_id, status, parameters, results, messages, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, '{}', '[]', $7) RETURNING ${ACTION_COLUMNS}`,
    [a.service_id, a.name, a.slug, a.specification_id, a.status, JSON.stringify(a.parameters), a.created_by],
  );
  return rows[0];
}

export async function findAction(manager: EntityManager, serviceId: string, id: string): Promise<ServiceActionRecord | undefined> {
  const rows: ServiceActionRecord[] = await manager.query(
    `SELECT ${ACTION_COLUMNS} FROM service_actions WHERE service_id = $1 AND id = $2`,
    [serviceId, id],
  );
  return rows[0];
}

export async function listActions(
  manager: EntityManager,
  serviceId: string,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: ServiceActionRecord[] }> {
  const [result]: Array<{ total: number; rows: ServiceActionRecord[] }> = await manager.query(
    `SELECT (SELECT count(*) FROM service_actions WHERE service_id = $1)::float8 AS total,
            COALESCE((SELECT json_agg(p) FROM (
              SELECT ${ACTION_COLUMNS} FROM service_actions WHERE service_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3
            ) p), '[]'::json) AS rows`,
    [serviceId, offset, limit],
  );
  return result;
}

export interface ActionChanges {
  name?: string;
  slug?: string;
  desired_specification_id?: string | null;
  status?: string;
  parameters?: Record<string, unknown>;
  results?: Record<string, unknown>;
  /** Appended to the action's messages. */
  messages?: ActionMessage[];
}

/** One UPDATE: fields that are given replace, messages append (concurrent reporters never overwrite each other). */
export async function updateAction(manager: EntityManager, id: string, c: ActionChanges): Promise<ServiceActionRecord> {
  const [rows]: [ServiceActionRecord[], number] = await manager.query(
    `UPDATE service_actions SET
       name = COALESCE($2, name), slug = COALESCE($3, slug),
       desired_specification_id = CASE WHEN $4::boolean THEN $5::uuid ELSE desired_specification_id END,
       status = COALESCE($6, status), parameters = COALESCE($7::jsonb, parameters), results = COALESCE($8::jsonb, results),
       messages = messages || COALESCE($9::jsonb, '[]'::jsonb), updated_at = now()
     WHERE id = $1 RETURNING ${ACTION_COLUMNS}`,
    [
      id,
      c.name ?? null,
      c.slug ?? null,
      c.desired_specification_id !== undefined,
      c.desired_specification_id ?? null,
      c.status ?? null,
      c.parameters === undefined ? null : JSON.stringify(c.parameters),
      c.results === undefined ? null : JSON.stringify(c.results),
      c.messages === undefined ? null : JSON.stringify(c.messages),
    ],
  );
  return rows[0];
}
