/**
 * Workflow definitions: workflows, immutable revisions, aliases and the trigger
 * bindings that activation registers. Unique constraints are the last line of
 * idempotency: one key per organization, one row per revision number, one
 * binding per (alias, trigger), one live webhook token anywhere.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowDefinitions1763720000000 implements MigrationInterface {
  name = 'WorkflowDefinitions1763720000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE workflows (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        key text NULL,
        name text NOT NULL,
        description text NULL,
        path text NOT NULL DEFAULT '/',
        nrn text NULL,
        metadata jsonb NULL,
        latest_revision integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE UNIQUE INDEX workflows_organization_key ON workflows (organization_id, key) WHERE key IS NOT NULL`);
    await runner.query(`CREATE INDEX workflows_organization_path ON workflows (organization_id, path text_pattern_ops)`);
    await runner.query(`
      CREATE TABLE workflow_revisions (
        workflow_id text NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
        revision integer NOT NULL CHECK (revision >= 1),
        definition jsonb NOT NULL,
        content_hash text NOT NULL,
        created_by text NULL,
        release_notes text NULL,
        semantic_version text NULL,
        engine_version text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, revision)
      )`);
    await runner.query(`
      CREATE TABLE workflow_aliases (
        workflow_id text NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
        name text NOT NULL,
        revision integer NOT NULL,
        active boolean NOT NULL DEFAULT false,
        metadata jsonb NULL,
        updated_by text NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, name),
        FOREIGN KEY (workflow_id, revision) REFERENCES workflow_revisions (workflow_id, revision)
      )`);
    await runner.query(`
      CREATE TABLE trigger_bindings (
        workflow_id text NOT NULL,
        alias_name text NOT NULL,
        trigger_id text NOT NULL,
        organization_id text NOT NULL,
        plugin_type text NOT NULL,
        revision integer NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'live', 'failed', 'inactive')),
        webhook_token text NULL UNIQUE,
        schedule_id text NULL,
        activated_at timestamptz NULL,
        deactivated_at timestamptz NULL,
        last_error jsonb NULL,
        runtime_metadata jsonb NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, alias_name, trigger_id),
        FOREIGN KEY (workflow_id, alias_name) REFERENCES workflow_aliases (workflow_id, name) ON DELETE CASCADE
      )`);
    await runner.query(`CREATE INDEX trigger_bindings_organization ON trigger_bindings (organization_id, workflow_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE trigger_bindings');
    await runner.query('DROP TABLE workflow_aliases');
    await runner.query('DROP TABLE workflow_revisions');
    await runner.query('DROP TABLE workflows');
  }
}
