/**
 * `executions.descendants`: on a root execution, how many sub-workflow
 * executions its tree recorded at every depth, so one conditional UPDATE of
 * the root's row can refuse a child past the tree budget
 * (WORKFLOW_MAX_EXECUTIONS_PER_TREE). A constant default: no rewrite of the table.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionTreeBudget1763780000000 implements MigrationInterface {
  name = 'ExecutionTreeBudget1763780000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN descendants integer NOT NULL DEFAULT 0`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions DROP COLUMN descendants`);
  }
}
