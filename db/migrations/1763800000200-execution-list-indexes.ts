/**
 * The executions list at millions of rows, and execution updates that stay HOT.
 *
 * - `executions_organization_status_created`, `executions_workflow_status_created`:
 *   the list filtered by status, and by workflow and status, newest first, is an
 *   index range scan (each page, each cursor step, and the capped total).
 *   Without them a status filter read every row of the organization.
 * - `executions_live` replaces `executions_unstarted` and `executions_children_live`:
 *   both sweeps (the start reconciler, the children sweep) look only at running
 *   or waiting executions, which this small partial index holds. Its columns are
 *   `created_at` and `status`, which no update but a status change writes: the
 *   old indexes were keyed or conditioned on `temporal_run_id` and `updated_at`,
 *   so recording the run id (once per execution) and touching a child were never HOT.
 * - `fillfactor = 85`: rows inserted from now on leave room on their page, so an
 *   update that changes no indexed column (run id, variables, progress, descendants)
 *   is written as a heap-only tuple, with no new index entry. A status change
 *   (waiting, the end) writes the status indexes and cannot be HOT.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionListIndexes1763800000200 implements MigrationInterface {
  name = 'ExecutionListIndexes1763800000200';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX executions_organization_status_created ON executions (organization_id, status, created_at DESC, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX executions_workflow_status_created ON executions (organization_id, workflow_id, status, created_at DESC, id DESC)`,
    );
    await runner.query(`CREATE INDEX executions_live ON executions (created_at, id) WHERE status IN ('running', 'waiting')`);
    await runner.query('DROP INDEX executions_unstarted');
    await runner.query('DROP INDEX executions_children_live');
    await runner.query('ALTER TABLE executions SET (fillfactor = 85)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE executions RESET (fillfactor)');
    await runner.query(
      `CREATE INDEX executions_children_live ON executions (updated_at, id)
       WHERE parent_execution_id IS NOT NULL AND status IN ('running', 'waiting')`,
    );
    await runner.query(
      `CREATE INDEX executions_unstarted ON executions (created_at, id) WHERE temporal_run_id IS NULL AND parent_execution_id IS NULL`,
    );
    await runner.query('DROP INDEX executions_live');
    await runner.query('DROP INDEX executions_workflow_status_created');
    await runner.query('DROP INDEX executions_organization_status_created');
  }
}
