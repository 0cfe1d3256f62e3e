/**
 * Issue 42: waits that say who may answer and what. An open wait's row keeps its declared answer
 * (`answer`: form, title, description, approvers, excludeStarter, required, notify, as the run rendered
 * them) and the answers counted so far (`answers`), so the signal endpoint's approval gate and the
 * approvals inbox read PostgreSQL alone. `execution_waits_answer` serves the inbox (open declared-answer
 * waits, oldest first). `wait_notices` keys a wait's notification by the wait: sent once, whatever the
 * activity's retries.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ApprovalWaits1764100000420 implements MigrationInterface {
  name = 'ApprovalWaits1764100000420';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE execution_waits ADD COLUMN answer jsonb NULL, ADD COLUMN answers jsonb NOT NULL DEFAULT '[]'`);
    await runner.query(`CREATE INDEX execution_waits_answer ON execution_waits (since, execution_id) WHERE answer IS NOT NULL`);
    await runner.query(`
      CREATE TABLE wait_notices (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        wait_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (execution_id, wait_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE wait_notices`);
    await runner.query(`DROP INDEX execution_waits_answer`);
    await runner.query(`ALTER TABLE execution_waits DROP COLUMN answers, DROP COLUMN answer`);
  }
}
