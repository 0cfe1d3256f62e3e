/**
 * The executions list at millions of rows, and execution updates that stay HOT.
 *
 * - `executions_organization_status_created`, `executions_workflow_status_created`:
 *   the list filtered by status, and by workflow and status, newest first, is an
 *   index range scan (each page, each cursor step, and the capped total).
 *   Without them a status filter read every row of the organization.
 * - `executions_children_live` is keyed by `(created_at, id)` instead of
 *   `(updated_at, id)`: every update writes `updated_at`, so no update of a live
 *   child was HOT. The children sweep sorts its few candidates by `updated_at` itself.
 * - `executions_unstarted` stays: the start reconciler reads only never-started
 *   executions through it, however many runs wait on signals for weeks. Its
 *   predicate names `temporal_run_id`, so recording the run id (once per
 *   execution) is not HOT: one index write, against a scan of every live
 *   execution on every reconciler tick without it.
 * - No lower fillfactor: progress updates are HOT at the default already, and a
 *   lower one left the heap larger in a burst of runs (docs/benchmarks.md, Scale).
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
    await runner.query('DROP INDEX executions_children_live');
    await runner.query(
      `CREATE INDEX executions_children_live ON executions (created_at, id)
       WHERE parent_execution_id IS NOT NULL AND status IN ('running', 'waiting')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX executions_children_live');
    await runner.query(
      `CREATE INDEX executions_children_live ON executions (updated_at, id)
       WHERE parent_execution_id IS NOT NULL AND status IN ('running', 'waiting')`,
    );
    await runner.query('DROP INDEX executions_workflow_status_created');
    await runner.query('DROP INDEX executions_organization_status_created');
  }
}
