/**
 * Service specifications with their action specifications, provider
 * categories and provider specifications.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export const PROVIDER_CATEGORY_SLUGS = [
  'logging',
  'metrics',
  'cloud-providers',
  'code-repository',
  'assets-repository',
  'container-orchestration',
  'compute-management',
  'vpc',
] as const;

export class Specifications1763710000002 implements MigrationInterface {
  name = 'Specifications1763710000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE service_specifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id bigint NOT NULL,
        name varchar(255) NOT NULL,
        slug varchar(255) NOT NULL,
        visible_to text[] NOT NULL,
        attributes jsonb NOT NULL,
        selectors jsonb NOT NULL,
        type text NOT NULL CHECK (type IN ('dependency', 'scope')),
        dimensions jsonb NOT NULL,
        assignable_to text NOT NULL CHECK (assignable_to IN ('any', 'dimension', 'scope')),
        use_default_actions boolean NOT NULL,
        use_default_naming boolean NOT NULL,
        scopes jsonb,
        package_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT service_specifications_slug_unique UNIQUE (organization_id, slug)
      )`);
    // Visibility queries ask "does visible_to overlap the NRNs that contain mine".
    await q.query(`CREATE INDEX service_specifications_visible_idx ON service_specifications USING gin (visible_to)`);

    await q.query(`
      CREATE TABLE action_specifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_specification_id uuid NOT NULL REFERENCES service_specifications (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        slug varchar(255) NOT NULL,
        type text NOT NULL CHECK (type IN ('create', 'update', 'delete', 'custom')),
        parameters jsonb NOT NULL,
        results jsonb NOT NULL,
        is_default boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT action_specifications_slug_unique UNIQUE (service_specification_id, slug)
      )`);

    await q.query(`
      CREATE TABLE provider_categories (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL UNIQUE,
        name text NOT NULL
      )`);
    for (const slug of PROVIDER_CATEGORY_SLUGS) {
      const name = slug.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
      await q.query(`INSERT INTO provider_categories (slug, name) VALUES ($1, $2)`, [slug, name]);
    }

    await q.query(`
      CREATE TABLE provider_specifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id bigint,
        name varchar(255) NOT NULL,
        slug varchar(255) NOT NULL,
        icon text,
        description text,
        visible_to text[] NOT NULL,
        schema jsonb NOT NULL,
        allow_dimensions boolean NOT NULL,
        default_dimensions jsonb NOT NULL,
        tags jsonb NOT NULL DEFAULT '[]',
        categories uuid[] NOT NULL,
        dependencies uuid[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT provider_specifications_slug_unique UNIQUE (slug)
      )`);
    await q.query(`CREATE INDEX provider_specifications_organization_idx ON provider_specifications (organization_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE provider_specifications`);
    await q.query(`DROP TABLE provider_categories`);
    await q.query(`DROP TABLE action_specifications`);
    await q.query(`DROP TABLE service_specifications`);
  }
}
