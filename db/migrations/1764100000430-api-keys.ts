/**
 * Issue 43: API keys. A key is stored only as the SHA-256 of its value (the value is
 * high-entropy random, so a plain hash is enough and lookups stay one index probe), beside
 * a short public prefix that names it in lists and rate limits. Its grants (role on NRN)
 * narrow its owner's. Managing one's own keys is `api_key:write` (`api_key:read` to list
 * them): the administrator holds both through `*`, the other catalog roles get them here
 * (security operations reads only, through its `*:read`).
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

const ROLES_WITH_KEYS = ['developer', 'viewer', 'ops', 'ci'];

export class ApiKeys1764100000430 implements MigrationInterface {
  name = 'ApiKeys1764100000430';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_keys (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id bigint NOT NULL,
        owner_id bigint NOT NULL,
        name varchar(100) NOT NULL,
        prefix varchar(32) NOT NULL,
        key_hash char(64) NOT NULL,
        grants jsonb NOT NULL,
        tags jsonb NOT NULL DEFAULT '[]'::jsonb,
        expires_at timestamptz NOT NULL,
        last_used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT api_keys_hash_unique UNIQUE (key_hash),
        CONSTRAINT api_keys_owner_fk FOREIGN KEY (owner_id, organization_id) REFERENCES users (id, organization_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX api_keys_owner ON api_keys (organization_id, owner_id, id)`);
    await q.query(
      `UPDATE roles SET permissions = array_append(permissions, 'api_key:*') WHERE slug = ANY($1) AND NOT ('api_key:*' = ANY(permissions))`,
      [ROLES_WITH_KEYS],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE roles SET permissions = array_remove(permissions, 'api_key:*') WHERE slug = ANY($1)`, [ROLES_WITH_KEYS]);
    await q.query(`DROP TABLE api_keys`);
  }
}
