/**
 * The `executions` table as flow control's promotion and sweeps see it (executions/flow/admit.ts has the
 * design): queued runs moved to `running` when their key has a free slot (under the key's lock,
 * ExecutionAdmissionRepository.lockKey) or their time has come, the keys with queued runs, a queued run's
 * place and cancellation, the queue's gauges.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity } from '../entities/execution';
import { rowsOf, selectColumns } from '../sql';
import type { FlowScope } from './execution-repository';

export class ExecutionFlowRepository extends Repository<ExecutionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEntity, manager);
  }

  /**
   * Moves the key's oldest queued runs to `running` while it has free slots (the head's limit, less the
   * runs holding it), marking them admitted now: called under the key's lock (ExecutionAdmissionRepository.lockKey). Their Temporal starts follow
   * the commit (executions/flow/promote.ts).
   */
  async promoteQueued(scope: FlowScope): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `WITH q AS (
         SELECT id, flow_limit, created_at FROM executions
          WHERE organization_id = $1 AND workflow_id = $2 AND flow_key = $3 AND flow_kind = 'concurrency' AND status = 'queued'
          ORDER BY created_at, id
       ),
       free AS (
         SELECT GREATEST(0, COALESCE((SELECT flow_limit FROM q ORDER BY created_at, id LIMIT 1), 0) - (
           SELECT count(*) FROM executions
            WHERE organization_id = $1 AND workflow_id = $2 AND flow_key = $3 AND status IN ('running', 'waiting'))) AS n
       )
       UPDATE executions SET status = 'running', admitted_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM q ORDER BY created_at, id LIMIT (SELECT n FROM free)) AND status = 'queued'
        RETURNING ${selectColumns(this.manager, ExecutionEntity)}`,
      [scope.organizationId, scope.workflowId, scope.flowKey],
    );
  }

  /**
   * Throttled and debounced runs whose time has come, moved to `running` (oldest due first, at most
   * `limit`); rows another sweeper or a debounce merge holds are skipped (SKIP LOCKED), so sweepers on
   * every replica never take one row twice.
   */
  async promoteDue(options: { temporalNamespace: string; limit: number; organizationId?: string }): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `UPDATE executions SET status = 'running', admitted_at = now(), updated_at = now()
        WHERE id IN (
          SELECT id FROM executions
           WHERE status = 'queued' AND flow_kind IN ('throttle', 'debounce') AND not_before <= now()
             AND temporal_namespace = $1 AND ($3::text IS NULL OR organization_id = $3)
           ORDER BY not_before, created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING ${selectColumns(this.manager, ExecutionEntity)}`,
      [options.temporalNamespace, options.limit, options.organizationId ?? null],
    );
  }

  /** Concurrency keys with queued runs (the sweep then promotes each under its lock), at most `limit`. */
  async queuedKeys(options: { temporalNamespace: string; limit: number; organizationId?: string }): Promise<FlowScope[]> {
    return rowsOf<FlowScope>(
      this.manager,
      `SELECT DISTINCT organization_id AS "organizationId", workflow_id AS "workflowId", flow_key AS "flowKey" FROM executions
        WHERE status = 'queued' AND flow_kind = 'concurrency' AND temporal_namespace = $1 AND ($3::text IS NULL OR organization_id = $3)
        LIMIT $2`,
      [options.temporalNamespace, options.limit, options.organizationId ?? null],
    );
  }

  /** Ends a queued run as cancelled or terminated (it holds no slot and has no Temporal workflow); false when it was not queued. */
  async endQueued(executionId: string, message: string, status: 'cancelled' | 'terminated' = 'cancelled'): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.manager,
      `WITH c AS (
         UPDATE executions SET status = $3::text, completed_at = now(), updated_at = now(), error = $2::jsonb
          WHERE id = $1 AND status = 'queued' RETURNING id
       ),
       ev AS (
         INSERT INTO execution_events (execution_id, seq, type, data)
         SELECT id, 0, 'execution.' || $3::text, jsonb_build_object('status', $3::text, 'error', $2::jsonb) FROM c
         ON CONFLICT DO NOTHING
       )
       SELECT id FROM c`,
      [executionId, JSON.stringify({ type: status === 'cancelled' ? 'CANCELLED' : 'TERMINATED', message }), status],
    );
    return rows.length > 0;
  }

  /** A queued run's place in its key's queue (1: next), or undefined when it is not queued. */
  async queuePosition(
    row: Pick<ExecutionEntity, 'id' | 'organizationId' | 'workflowId' | 'flowKey' | 'status'>,
  ): Promise<number | undefined> {
    if (row.status !== 'queued' || row.flowKey === null) return undefined;
    const [read] = await rowsOf<{ n: number }>(
      this.manager,
      `SELECT count(*)::int AS n FROM executions
        WHERE organization_id = $1 AND workflow_id = $2 AND flow_key = $3 AND status = 'queued'
          AND (created_at, id) <= (SELECT created_at, id FROM executions WHERE id = $4)`,
      [row.organizationId, row.workflowId, row.flowKey, row.id],
    );
    return read?.n;
  }

  /** Queued runs of a namespace, and the oldest one's age in seconds (the metrics' gauges). */
  async queuedGauge(temporalNamespace: string): Promise<{ queued: number; oldestSeconds: number }> {
    const [read] = await rowsOf<{ queued: number; oldestSeconds: number | null }>(
      this.manager,
      `SELECT count(*)::int AS queued, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS "oldestSeconds"
         FROM executions WHERE status = 'queued' AND temporal_namespace = $1`,
      [temporalNamespace],
    );
    return { queued: read?.queued ?? 0, oldestSeconds: read?.oldestSeconds ?? 0 };
  }
}
