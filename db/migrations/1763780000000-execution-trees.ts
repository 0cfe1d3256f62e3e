/**
 * `executions.descendants`: on a root execution, how many sub-workflow
 * executions its tree recorded at every depth, so one conditional UPDATE of
 * the root's row can refuse a child past the tree budget
 * (WORKFLOW_MAX_EXECUTIONS_PER_TREE). A constant default: no rewrite of the table.
 *
 * `executions_children_live`: the sub-workflow children still running or
 * waiting, for the sweep that settles those whose run Temporal closed with
 * their parent (executions/settle-children.ts). Small: finished rows leave it.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionTrees1763780000000 implements MigrationInterface {
  name = 'ExecutionTrees1763780000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE executions ADD COLUMN descendants integer NOT NULL DEFAULT 0`);
    await runner.query(
      `CREATE INDEX executions_children_live ON executions (updated_at, id)
       WHERE parent_execution_id IS NOT NULL AND status IN ('running', 'waiting')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX executions_children_live');
    await runner.query(`ALTER TABLE executions DROP COLUMN descendants`);
  }
}
