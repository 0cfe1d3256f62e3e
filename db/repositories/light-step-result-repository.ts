/**
 * The `light_step_results` table: a light step call's result, stored when the
 * call completes and read before a call is made, so a call replayed after a
 * lost worker answers with what the first one returned.
 */
import { LessThan, Repository, type EntityManager } from 'typeorm';
import { LightStepResultEntity } from '../entities/light-step-result';
import type { PluginResult } from '../../workflows/engine';

export class LightStepResultRepository extends Repository<LightStepResultEntity> {
  constructor(manager: EntityManager) {
    super(LightStepResultEntity, manager);
  }

  async resultOf(workflowRunId: string, callKey: string): Promise<PluginResult | undefined> {
    const row = await this.findOne({ select: { result: true }, where: { workflowRunId, callKey } });
    return row?.result;
  }

  /** Keeps a completed call's result; a replayed call that completed again keeps the first. */
  async remember(workflowRunId: string, callKey: string, result: PluginResult): Promise<void> {
    await this.manager.query(
      `INSERT INTO light_step_results (workflow_run_id, call_key, result) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING`,
      [workflowRunId, callKey, JSON.stringify(result)],
    );
  }

  /** Forgets results older than `before` (Temporal recorded them long ago). */
  async prune(before: Date): Promise<void> {
    await this.delete({ createdAt: LessThan(before) });
  }
}
