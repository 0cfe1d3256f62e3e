/**
 * Recovery runs (`on-error`, `execution-failed-trigger`): `failure_dispatched_at`
 * marks a failed execution whose recovery runs were started (or that needed
 * none). The worker dispatches right after recording the failure; the start
 * reconciler sweeps failed rows still unmarked (a process that died in
 * between), through the partial index, which holds only those rows. Failures
 * recorded before this migration count as dispatched: an upgrade never starts
 * recovery runs for old failures.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FailureDispatch1763760200000 implements MigrationInterface {
  name = 'FailureDispatch1763760200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN failure_dispatched_at timestamptz`);
    await runner.query(`UPDATE executions SET failure_dispatched_at = COALESCE(completed_at, now()) WHERE status = 'failed'`);
    await runner.query(
      `CREATE INDEX executions_failure_undispatched ON executions (completed_at, id) WHERE status = 'failed' AND failure_dispatched_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX executions_failure_undispatched');
    await runner.query('ALTER TABLE executions DROP COLUMN failure_dispatched_at');
  }
}
