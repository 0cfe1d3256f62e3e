/**
 * Issue 38: every run ends, and the API agrees with Temporal. The open-runs sweep
 * (executions/check-open-runs.ts) looks at open executions in Temporal and records what it saw:
 * `checked_at` (when; the sweep takes the least recently checked first) and `run_health` (a
 * workflow task that keeps failing, else NULL), so reads never ask Temporal.
 * `executions_open_checked` serves the sweep's pick; `executions_task_failing` the count the
 * metric reports.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OpenRunChecks1763910000000 implements MigrationInterface {
  name = 'OpenRunChecks1763910000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN checked_at timestamptz NULL`);
    await runner.query(`ALTER TABLE executions ADD COLUMN run_health jsonb NULL`);
    await runner.query(
      `CREATE INDEX executions_open_checked ON executions (checked_at NULLS FIRST, created_at, id) WHERE status IN ('running', 'waiting')`,
    );
    await runner.query(
      `CREATE INDEX executions_task_failing ON executions (id) WHERE run_health IS NOT NULL AND status IN ('running', 'waiting')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX executions_task_failing`);
    await runner.query(`DROP INDEX executions_open_checked`);
    await runner.query(`ALTER TABLE executions DROP COLUMN run_health`);
    await runner.query(`ALTER TABLE executions DROP COLUMN checked_at`);
  }
}
