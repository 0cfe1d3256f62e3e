/**
 * Config entries (secrets and variables) on a folder path or on one workflow.
 * Secret values live only in `encrypted_value` (AES-256-GCM); `value` holds
 * plain variables. The unique index over the place makes upserts by name
 * idempotent under concurrency.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ConfigEntries1763720000001 implements MigrationInterface {
  name = 'ConfigEntries1763720000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE config_entries (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        secret boolean NOT NULL,
        path text NULL,
        workflow_id text NULL REFERENCES workflows (id) ON DELETE CASCADE,
        value text NULL,
        encrypted_value bytea NULL,
        version integer NOT NULL DEFAULT 1,
        created_by text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((path IS NULL) <> (workflow_id IS NULL)),
        CHECK (secret = (encrypted_value IS NOT NULL) AND (value IS NULL OR NOT secret))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX config_entries_place ON config_entries (organization_id, name, (COALESCE(path, '')), (COALESCE(workflow_id, '')))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE config_entries');
  }
}
