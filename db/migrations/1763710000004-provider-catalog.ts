/** The global provider specifications the platform ships (see data/provider-specifications-v1.ts). */
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PROVIDER_SEEDS } from './data/provider-specifications-v1';

export class ProviderCatalog1763710000004 implements MigrationInterface {
  name = 'ProviderCatalog1763710000004';

  async up(q: QueryRunner): Promise<void> {
    for (const seed of PROVIDER_SEEDS) {
      await q.query(
        `INSERT INTO provider_specifications (organization_id, name, slug, description, visible_to, schema, allow_dimensions, default_dimensions, categories)
         VALUES (NULL, $1, $2, $3, '{organization=*}', $4, $5, '{}', ARRAY[(SELECT id FROM provider_categories WHERE slug = $6)])`,
        [seed.name, seed.slug, seed.description, JSON.stringify(seed.schema), seed.allowDimensions, seed.category],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM provider_specifications WHERE organization_id IS NULL AND slug = ANY($1)`, [
      PROVIDER_SEEDS.map((s) => s.slug),
    ]);
  }
}
