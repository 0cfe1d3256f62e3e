/**
 * What a read of a running execution needs, recorded by the workflow as it runs
 * (so reads answer from PostgreSQL and never wake a worker with a Temporal query):
 * the run's variables as of its last recorded step, and each open wait's timeout
 * and (webhook waits) callback URL. Rows written before have none: such a wait
 * shows no `timeoutAt`, such a run `{}` as variables until its next step.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordedRunState1763790000000 implements MigrationInterface {
  name = 'RecordedRunState1763790000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN variables jsonb`);
    await runner.query(`ALTER TABLE execution_waits ADD COLUMN timeout_at timestamptz, ADD COLUMN callback_url text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE execution_waits DROP COLUMN timeout_at, DROP COLUMN callback_url`);
    await runner.query(`ALTER TABLE executions DROP COLUMN variables`);
  }
}
