/** Provider specifications (organization_id null: global, shipped by the platform) and their categories. */
import type { EntityManager } from 'typeorm';

export interface ProviderSpecRecord {
  id: string;
  organization_id: number | null;
  name: string;
  slug: string;
  icon: string | null;
  description: string | null;
  visible_to: string[];
  schema: Record<string, unknown>;
  allow_dimensions: boolean;
  default_dimensions: Record<string, unknown>;
  tags: Array<{ key: string; value: string; id: string }>;
  categories: string[];
  dependencies: string[];
  created_at: Date;
  updated_at: Date;
}

export type ProviderSpecFields = Pick<
  ProviderSpecRecord,
  | 'organization_id'
  | 'name'
  | 'slug'
  | 'icon'
  | 'description'
  | 'visible_to'
  | 'schema'
  | 'allow_dimensions'
  | 'default_dimensions'
  | 'categories'
>;

const COLUMNS = `id, organization_id::float8 AS organization_id, name, slug, icon, description, visible_to, schema, allow_dimensions,
  default_dimensions, tags, categories, dependencies, created_at, updated_at`;
const values = (f: ProviderSpecFields) => [
  f.organization_id,
  f.name,
  f.slug,
  f.icon,
  f.description,
  f.visible_to,
  JSON.stringify(f.schema),
  f.allow_dimensions,
  JSON.stringify(f.default_dimensions),
  f.categories,
];

export async function categoryIds(manager: EntityManager, slug: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await manager.query(`SELECT id FROM provider_categories WHERE slug = $1`, [slug]);
  return rows.map((r) => r.id);
}

export async function insertProviderSpec(manager: EntityManager, f: ProviderSpecFields): Promise<ProviderSpecRecord> {
  const rows: ProviderSpecRecord[] = await manager.query(
    `INSERT INTO provider_specifications (organization_id, name, slug, icon, description, visible_to, schema, allow_dimensions, default_dimensions, categories)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    values(f),
  );
  return rows[0];
}

export async function updateProviderSpec(manager: EntityManager, id: string, f: ProviderSpecFields): Promise<ProviderSpecRecord> {
  const [rows]: [ProviderSpecRecord[], number] = await manager.query(
    `UPDATE provider_specifications SET organization_id = $1, name = $2, slug = $3, icon = $4, description = $5, visible_to = $6, schema = $7,
       allow_dimensions = $8, default_dimensions = $9, categories = $10, updated_at = now()
     WHERE id = $11 RETURNING ${COLUMNS}`,
    [...values(f), id],
  );
  return rows[0];
}

export async function findProviderSpec(manager: EntityManager, id: string): Promise<ProviderSpecRecord | undefined> {
  const rows: ProviderSpecRecord[] = await manager.query(`SELECT ${COLUMNS} FROM provider_specifications WHERE id = $1`, [id]);
  return rows[0];
}

export async function providerSlugsLike(manager: EntityManager, base: string): Promise<Set<string>> {
  const rows: Array<{ slug: string }> = await manager.query(`SELECT slug FROM provider_specifications WHERE left(slug, $2) = $1`, [
    base,
    base.length,
  ]);
  return new Set(rows.map((r) => r.slug));
}

/** Global specifications and those of one organization, global first. */
export async function listProviderSpecs(
  manager: EntityManager,
  f: { organizationId: number; category?: string; slug?: string; offset: number; limit: number },
): Promise<{ total: number; rows: ProviderSpecRecord[] }> {
  const [result]: Array<{ total: number; rows: ProviderSpecRecord[] }> = await manager.query(
    `WITH matching AS (
       SELECT * FROM provider_specifications
        WHERE (organization_id IS NULL OR organization_id = $1)
          AND ($2::text IS NULL OR categories && ARRAY(SELECT id FROM provider_categories WHERE slug = $2))
          AND ($3::text IS NULL OR slug = $3)
     )
     SELECT (SELECT count(*) FROM matching)::float8 AS total,
            COALESCE((SELECT json_agg(p) FROM (
              SELECT ${COLUMNS} FROM matching ORDER BY organization_id NULLS FIRST, created_at, id OFFSET $4 LIMIT $5
            ) p), '[]'::json) AS rows`,
    [f.organizationId, f.category ?? null, f.slug ?? null, f.offset, f.limit],
  );
  return result;
}

export async function deleteProviderSpec(manager: EntityManager, id: string): Promise<void> {
  await manager.query(`DELETE FROM provider_specifications WHERE id = $1`, [id]);
}
