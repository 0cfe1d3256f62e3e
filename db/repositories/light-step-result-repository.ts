/**
 * The `light_step_results` table: a light step call's result, stored when the
 * call completes and read before a call is made, so a call replayed after a
 * lost worker answers with what the first one returned.
 */
import { LessThan, Repository, type EntityManager } from 'typeorm';
import { LightStepResultEntity } from '../entities/light-step-result';
import type { PluginResult } from '../../workflows/engine';
import { poolQuery, rowsOf } from '../sql';
import { sql, type Sql } from '../sql-builder';

/** The insert (also one part of a step batch: step-batch-statement.ts). */
export function insertLightResultSql(workflowRunId: unknown, callKey: unknown, resultJson: unknown): Sql {
  return sql`INSERT INTO light_step_results (workflow_run_id, call_key, result) VALUES (${workflowRunId}, ${callKey}, ${resultJson}::jsonb)
    ON CONFLICT DO NOTHING`;
}

export class LightStepResultRepository extends Repository<LightStepResultEntity> {
  constructor(manager: EntityManager) {
    super(LightStepResultEntity, manager);
  }

  /** On every light step's path: one primary-key read, on the pool as a prepared statement (no query runner). */
  async resultOf(workflowRunId: string, callKey: string): Promise<PluginResult | undefined> {
    const [row] = await poolQuery<Pick<LightStepResultEntity, 'result'>>(
      this.manager,
      'light-step-result',
      `SELECT result FROM light_step_results WHERE workflow_run_id = $1 AND call_key = $2`,
      [workflowRunId, callKey],
    );
    return row?.result;
  }

  /** Keeps a completed call's result; a replayed call that completed again keeps the first. */
  async remember(workflowRunId: string, callKey: string, result: PluginResult): Promise<void> {
    await rowsOf(this.manager, insertLightResultSql(workflowRunId, callKey, JSON.stringify(result)));
  }

  /** Forgets results older than `before` (Temporal recorded them long ago). */
  async prune(before: Date): Promise<void> {
    await this.delete({ createdAt: LessThan(before) });
  }
}
