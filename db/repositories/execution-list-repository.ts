/**
 * The `executions` table as the API lists and counts it: a page of one organization's executions
 * (offset or keyset, with a capped total) and the counts the overview shows. One statement each,
 * by the organization's indexes; the single-row reads and the writes are in ExecutionRepository.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity, type ExecutionStatus } from '../entities/execution';
import { rowsOf, selectColumns } from '../sql';
import { join, raw, sql } from '../sql-builder';
import { keysetPage } from './paged-rows';

export interface ExecutionFilter {
  workflowId?: string;
  alias?: string;
  status?: ExecutionStatus;
  correlationKey?: string;
  /** Re-runs and retries of this execution. */
  rerunOf?: string;
  from?: Date;
  to?: Date;
}

export class ExecutionListRepository extends Repository<ExecutionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEntity, manager);
  }

  /**
   * Newest first (created_at DESC, id DESC), a page of `limit` rows after `offset` rows or, keyset,
   * after the row `after` names (an index range scan however deep). `next` names the page's last row
   * when more rows follow. `total` counts the filtered rows up to `countCap` (an index scan of at
   * most that many entries, never the whole organization); `totalCapped` says more rows match.
   */
  async listPage(
    organizationId: string,
    filter: ExecutionFilter,
    page: { limit: number; offset: number; after?: { createdAt: string; id: string }; countCap: number },
  ): Promise<{ rows: ExecutionEntity[]; next?: { createdAt: string; id: string }; total: number; totalCapped: boolean }> {
    const where = [sql`organization_id = ${organizationId}`];
    if (filter.workflowId) where.push(sql`workflow_id = ${filter.workflowId}`);
    if (filter.alias) where.push(sql`alias = ${filter.alias}`);
    if (filter.status) where.push(sql`status = ${filter.status}`);
    if (filter.correlationKey) where.push(sql`correlation_key = ${filter.correlationKey}`);
    if (filter.rerunOf) where.push(sql`rerun_of = ${filter.rerunOf}`);
    if (filter.from) where.push(sql`created_at >= ${filter.from}`);
    if (filter.to) where.push(sql`created_at < ${filter.to}`);
    const counted = join(where, ' AND ');
    if (page.after) where.push(sql`(created_at, id) < (${page.after.createdAt}::timestamptz, ${page.after.id}::text)`);
    const [rows, [count]] = await Promise.all([
      rowsOf<ExecutionEntity & { __position: string }>(
        this.manager,
        sql`SELECT ${raw(selectColumns(this.manager, ExecutionEntity))},
           to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "__position"
         FROM executions WHERE ${join(where, ' AND ')}
         ORDER BY created_at DESC, id DESC LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`,
      ),
      rowsOf<{ total: number }>(
        this.manager,
        sql`SELECT count(*)::int AS total FROM (SELECT 1 FROM executions WHERE ${counted} LIMIT ${raw(String(page.countCap + 1))}) matching`,
      ),
    ]);
    const listed = keysetPage(
      rows,
      page.limit,
      ({ __position: _position, ...row }) => row,
      (row) => ({ createdAt: row.__position, id: row.id }),
    );
    return {
      ...listed,
      total: Math.min(count.total, page.countCap),
      totalCapped: count.total > page.countCap,
    };
  }

  /**
   * Executions created in [from, to) counted by `bucket` (hour or day, UTC) and current status,
   * and the workflows with the most failed ones among them. Both read the
   * `(organization_id, status, created_at)` index: the count by an index-only range scan per
   * status (`statuses` names every one, so the index's second column is bound), the failures by
   * the range of `failed` alone.
   */
  async countsByBucket(
    organizationId: string,
    range: { from: Date; to: Date; bucket: 'hour' | 'day'; statuses: readonly ExecutionStatus[]; failingLimit: number },
  ): Promise<{
    counts: Array<{ bucket: Date; status: ExecutionStatus; count: number }>;
    failing: Array<{ workflowId: string; workflowKey: string | null; failed: number; lastFailedAt: Date }>;
  }> {
    const params = [organizationId, range.statuses, range.from, range.to];
    const [counts, failing] = await Promise.all([
      rowsOf<{ bucket: Date; status: ExecutionStatus; count: number }>(
        this.manager,
        `SELECT date_trunc('${range.bucket}', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, status, count(*)::int AS count
         FROM executions
         WHERE organization_id = $1 AND status = ANY($2::text[]) AND created_at >= $3 AND created_at < $4
         GROUP BY 1, 2 ORDER BY 1, 2`,
        params,
      ),
      rowsOf<{ workflowId: string; workflowKey: string | null; failed: number; lastFailedAt: Date }>(
        this.manager,
        `SELECT workflow_id AS "workflowId", max(workflow_key) AS "workflowKey", count(*)::int AS failed, max(created_at) AS "lastFailedAt"
         FROM executions
         WHERE organization_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
         GROUP BY workflow_id ORDER BY failed DESC, "lastFailedAt" DESC, workflow_id LIMIT ${range.failingLimit}`,
        [organizationId, range.from, range.to],
      ),
    ]);
    return { counts, failing };
  }
}
