/**
 * The start reconciler's index: top-level executions not yet linked to a
 * Temporal run, by age. Rows leave it as soon as their run id is recorded
 * (normally right after insert), so it stays tiny and each sweep is an index
 * scan instead of a scan of every execution ever recorded. Status updates do
 * not touch its columns and stay HOT.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionsUnstarted1763730000001 implements MigrationInterface {
  name = 'ExecutionsUnstarted1763730000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX executions_unstarted ON executions (created_at, id) WHERE temporal_run_id IS NULL AND parent_execution_id IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX executions_unstarted');
  }
}
