/**
 * Issue 29: re-runs and retries. An execution started by POST /workflows/executions/{id}/rerun or …/retry
 * names the execution it runs again (`rerun_of`) and how (`rerun_kind`: 'rerun' runs every step again,
 * 'retry' reuses the steps that completed); `executions_rerun_of` finds the runs of an execution.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionReruns1763900000000 implements MigrationInterface {
  name = 'ExecutionReruns1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN rerun_of text NULL`);
    await runner.query(`ALTER TABLE executions ADD COLUMN rerun_kind text NULL CHECK (rerun_kind IN ('rerun', 'retry'))`);
    await runner.query(`CREATE INDEX executions_rerun_of ON executions (rerun_of) WHERE rerun_of IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX executions_rerun_of`);
    await runner.query(`ALTER TABLE executions DROP COLUMN rerun_kind`);
    await runner.query(`ALTER TABLE executions DROP COLUMN rerun_of`);
  }
}
