/**
 * Retention of ended executions (executions/retention-sweep.ts).
 *
 * - `execution_retention`: the days an organization (`workflow_id` = '') or one
 *   of its workflows keeps its ended executions, overriding EXECUTION_RETENTION_DAYS.
 *   A few rows per organization; the sweep joins it, so a change applies to
 *   executions that ended before it.
 * - `executions_ended`: ended executions by end time, the sweep's candidates
 *   past the default, oldest first (running and waiting rows stay out of it).
 * - `executions_ended_org`: the same within one organization, for the
 *   settings shorter than the default (a short setting never walks the rows of
 *   other organizations).
 * - `executions_parent`: the children of an execution, so the sweep keeps a
 *   parent while a child of it is open (and finds open ancestors cheaply).
 * - `signal_deliveries_execution`: the idempotent deliveries to an execution,
 *   removed with it.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionRetention1763800000100 implements MigrationInterface {
  name = 'ExecutionRetention1763800000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE execution_retention (
        organization_id text NOT NULL,
        workflow_id text NOT NULL DEFAULT '',
        retention_days integer NOT NULL CHECK (retention_days BETWEEN 1 AND 3650),
        updated_by text NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, workflow_id)
      )`);
    await runner.query(`CREATE INDEX executions_ended ON executions (completed_at, id) WHERE status NOT IN ('running', 'waiting')`);
    await runner.query(
      `CREATE INDEX executions_ended_org ON executions (organization_id, completed_at, id) WHERE status NOT IN ('running', 'waiting')`,
    );
    await runner.query(`CREATE INDEX executions_parent ON executions (parent_execution_id) WHERE parent_execution_id IS NOT NULL`);
    await runner.query(`CREATE INDEX signal_deliveries_execution ON signal_deliveries (execution_id) WHERE execution_id IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX signal_deliveries_execution');
    await runner.query('DROP INDEX executions_parent');
    await runner.query('DROP INDEX executions_ended_org');
    await runner.query('DROP INDEX executions_ended');
    await runner.query('DROP TABLE execution_retention');
  }
}
