/**
 * Executions, their step records and their logs.
 *
 * - `executions`: one row per run (id = Temporal workflow id). The idempotency
 *   key is unique per workflow: a repeated execute is decided by the
 *   constraint, not by a read.
 * - `execution_steps`: the latest record of each step run, keyed by
 *   (execution, step, run) so a retried write changes nothing.
 * - `execution_logs`: numbered densely per execution (`seq`) and per step
 *   (`step_seq`) by the workflow, so every log window is an index range scan
 *   and `total` is the last number plus one, with or without a step filter.
 * - `execution_waits`: the open signal waits the workflow reported, so a
 *   signal by correlation key finds its execution with one index lookup. A
 *   row is a hint (the update's validator decides); finished executions are
 *   filtered by status.
 * - `execution_events`: the execution's step, wait and end events, numbered
 *   densely by the workflow (`seq`, the Server-Sent Events id): a reader takes
 *   them in order without gaps, so a batch committing late is never skipped,
 *   and a replayed batch inserts nothing twice.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Executions1763730000000 implements MigrationInterface {
  name = 'Executions1763730000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE executions (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        workflow_id text NOT NULL,
        workflow_key text NULL,
        revision integer NOT NULL,
        alias text NULL,
        status text NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated')),
        inputs jsonb NOT NULL DEFAULT '{}'::jsonb,
        outputs jsonb NULL,
        error jsonb NULL,
        trigger jsonb NOT NULL,
        correlation_key text NULL,
        idempotency_key text NULL,
        parent_execution_id text NULL,
        temporal_run_id text NULL,
        temporal_namespace text NOT NULL,
        vars_used jsonb NULL,
        created_by text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX executions_idempotency ON executions (organization_id, workflow_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await runner.query(`CREATE INDEX executions_organization_created ON executions (organization_id, created_at DESC, id DESC)`);
    await runner.query(`CREATE INDEX executions_workflow_created ON executions (organization_id, workflow_id, created_at DESC, id DESC)`);
    await runner.query(
      `CREATE INDEX executions_correlation ON executions (organization_id, correlation_key) WHERE correlation_key IS NOT NULL`,
    );
    await runner.query(`
      CREATE TABLE execution_steps (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        step_id text NOT NULL,
        run integer NOT NULL,
        status text NOT NULL,
        record jsonb NOT NULL,
        started_at timestamptz NULL,
        completed_at timestamptz NULL,
        PRIMARY KEY (execution_id, step_id, run)
      )`);
    await runner.query(`
      CREATE TABLE execution_logs (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        step_id text NOT NULL,
        step_seq integer NOT NULL,
        level text NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
        message text NOT NULL,
        metadata jsonb NULL,
        logged_at timestamptz NOT NULL,
        PRIMARY KEY (execution_id, seq)
      )`);
    await runner.query(`CREATE UNIQUE INDEX execution_logs_step ON execution_logs (execution_id, step_id, step_seq)`);
    await runner.query(`
      CREATE TABLE execution_waits (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        wait_id text NOT NULL,
        step_id text NOT NULL,
        signal_names text[] NOT NULL,
        correlation_key text NULL,
        since timestamptz NOT NULL,
        PRIMARY KEY (execution_id, wait_id)
      )`);
    await runner.query(`CREATE INDEX execution_waits_correlation ON execution_waits (correlation_key) WHERE correlation_key IS NOT NULL`);
    await runner.query(`
      CREATE TABLE execution_events (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (execution_id, seq)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE execution_events');
    await runner.query('DROP TABLE execution_waits');
    await runner.query('DROP TABLE execution_logs');
    await runner.query('DROP TABLE execution_steps');
    await runner.query('DROP TABLE executions');
  }
}
