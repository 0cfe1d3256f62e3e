/**
 * The `execution_retention` table: an organization's own retention (`workflow_id` = '')
 * and its workflows' overrides. The sweep never reads it row by row: its candidates
 * query joins it (ExecutionSweepRepository.claimExpired).
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionRetentionEntity, ORGANIZATION_WIDE } from '../entities/execution-retention';
import { rowsOf, selectColumns } from '../sql';

export class ExecutionRetentionRepository extends Repository<ExecutionRetentionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionRetentionEntity, manager);
  }

  /** The setting of the organization (no `workflowId`) or of one of its workflows; undefined when none is set. */
  async settingOf(organizationId: string, workflowId: string = ORGANIZATION_WIDE): Promise<ExecutionRetentionEntity | undefined> {
    return (await this.findOneBy({ organizationId, workflowId })) ?? undefined;
  }

  /** Both settings that may apply to a workflow's executions, in one read. */
  async settingsFor(organizationId: string, workflowId: string): Promise<{ workflow?: number; organization?: number }> {
    const rows = await this.findBy([
      { organizationId, workflowId },
      { organizationId, workflowId: ORGANIZATION_WIDE },
    ]);
    const days = (id: string) => rows.find((row) => row.workflowId === id)?.retentionDays;
    return { workflow: days(workflowId), organization: days(ORGANIZATION_WIDE) };
  }

  /** Sets (creates or replaces) a setting in one statement; answers with the row and whether it is new. */
  async put(
    organizationId: string,
    workflowId: string,
    retentionDays: number,
    updatedBy: string | null,
  ): Promise<{ row: ExecutionRetentionEntity; created: boolean }> {
    const [row] = await rowsOf<ExecutionRetentionEntity & { created: boolean }>(
      this.manager,
      `INSERT INTO execution_retention (organization_id, workflow_id, retention_days, updated_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, workflow_id)
       DO UPDATE SET retention_days = EXCLUDED.retention_days, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING ${selectColumns(this.manager, ExecutionRetentionEntity)}, (xmax = 0) AS created`,
      [organizationId, workflowId, retentionDays, updatedBy],
    );
    const { created, ...setting } = row;
    return { row: setting, created };
  }

  /** Removes a setting; false when there was none. */
  async removeSetting(organizationId: string, workflowId: string = ORGANIZATION_WIDE): Promise<boolean> {
    const result = await this.delete({ organizationId, workflowId });
    return (result.affected ?? 0) > 0;
  }
}
