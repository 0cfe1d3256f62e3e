/**
 * Accounts with soft delete, the metadata catalog, and a per-organization count
 * of live accounts kept by statement-level triggers so that a page of the
 * account list never counts 100,000 rows.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Accounts1763710000001 implements MigrationInterface {
  name = 'Accounts1763710000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id bigint NOT NULL,
        name varchar(60) NOT NULL,
        slug varchar(70) NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'inactive', 'deleted')),
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'deleted') = (deleted_at IS NOT NULL))
      )`);
    // A slug is unique among the live accounts of an organization; a deleted account frees it.
    await q.query(`CREATE UNIQUE INDEX accounts_slug_unique ON accounts (organization_id, slug) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX accounts_listing_idx ON accounts (organization_id, id) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE metadata_catalog (
        entity text NOT NULL,
        entity_id text NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        schemas jsonb NOT NULL DEFAULT '[]',
        tags jsonb NOT NULL DEFAULT '[]',
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (entity, entity_id)
      )`);

    await q.query(`CREATE TABLE account_counts (organization_id bigint PRIMARY KEY, live bigint NOT NULL)`);
    for (const [event, body] of [
      ['INSERT', `SELECT organization_id, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY 1`],
      ['DELETE', `SELECT organization_id, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY 1`],
      [
        'UPDATE',
        `SELECT organization_id, sum(d) FROM (
           SELECT organization_id, 1 AS d FROM new_rows WHERE deleted_at IS NULL
           UNION ALL SELECT organization_id, -1 FROM old_rows WHERE deleted_at IS NULL) c
         GROUP BY 1 HAVING sum(d) <> 0`,
      ],
    ] as const) {
      const fn = `account_counts_${event.toLowerCase()}`;
      await q.query(`
        CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO account_counts (organization_id, live) ${body}
          ON CONFLICT (organization_id) DO UPDATE SET live = account_counts.live + EXCLUDED.live;
          RETURN NULL;
        END $$`);
      const transitions =
        event === 'INSERT'
          ? 'NEW TABLE AS new_rows'
          : event === 'DELETE'
            ? 'OLD TABLE AS old_rows'
            : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      await q.query(
        `CREATE TRIGGER ${fn} AFTER ${event} ON accounts REFERENCING ${transitions} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts`);
    for (const event of ['insert', 'update', 'delete']) await q.query(`DROP FUNCTION account_counts_${event}()`);
    await q.query(`DROP TABLE account_counts`);
    await q.query(`DROP TABLE metadata_catalog`);
  }
}
