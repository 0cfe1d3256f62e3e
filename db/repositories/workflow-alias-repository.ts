/**
 * The `workflow_aliases` table. Every mutation of an alias runs in a transaction
 * that first locks the workflow row (WorkflowRepository.lockByRef), so concurrent
 * activate/deactivate/repoint calls on one workflow serialize.
 */
import { Repository, type EntityManager } from 'typeorm';
import { WorkflowAliasEntity } from '../entities/workflow-alias';
import { rowsOf, selectColumns } from '../sql';

export class WorkflowAliasRepository extends Repository<WorkflowAliasEntity> {
  constructor(manager: EntityManager) {
    super(WorkflowAliasEntity, manager);
  }

  async listOf(workflowId: string): Promise<WorkflowAliasEntity[]> {
    return this.find({ where: { workflowId }, order: { name: 'ASC' } });
  }

  async findAlias(workflowId: string, name: string): Promise<WorkflowAliasEntity | null> {
    return this.findOneBy({ workflowId, name });
  }

  async anyActive(workflowId: string): Promise<boolean> {
    return this.existsBy({ workflowId, active: true });
  }

  /** Creates or repoints an alias (inactive when new); `metadata` undefined keeps the stored metadata. */
  async upsertAlias(
    alias: Pick<WorkflowAliasEntity, 'workflowId' | 'name' | 'revision' | 'updatedBy'> & {
      metadata: WorkflowAliasEntity['metadata'] | undefined;
    },
  ): Promise<WorkflowAliasEntity> {
    const [row] = await rowsOf<WorkflowAliasEntity>(
      this.manager,
      `INSERT INTO workflow_aliases (workflow_id, name, revision, active, metadata, updated_by) VALUES ($1, $2, $3, false, $4::jsonb, $5)
       ON CONFLICT (workflow_id, name) DO UPDATE SET revision = EXCLUDED.revision, updated_by = EXCLUDED.updated_by, updated_at = now(),
         metadata = CASE WHEN $6 THEN EXCLUDED.metadata ELSE workflow_aliases.metadata END
       RETURNING ${selectColumns(this.manager, WorkflowAliasEntity)}`,
      [
        alias.workflowId,
        alias.name,
        alias.revision,
        alias.metadata ? JSON.stringify(alias.metadata) : null,
        alias.updatedBy,
        alias.metadata !== undefined,
      ],
    );
    return row;
  }

  /** Sets (null: clears) the alias's own flow control. */
  async setFlowControl(workflowId: string, name: string, flowControl: Record<string, unknown> | null): Promise<WorkflowAliasEntity> {
    const [row] = await rowsOf<WorkflowAliasEntity>(
      this.manager,
      `UPDATE workflow_aliases SET flow_control = $3::jsonb WHERE workflow_id = $1 AND name = $2
       RETURNING ${selectColumns(this.manager, WorkflowAliasEntity)}`,
      [workflowId, name, flowControl === null ? null : JSON.stringify(flowControl)],
    );
    return row;
  }

  async setActive(workflowId: string, name: string, active: boolean, updatedBy: string): Promise<WorkflowAliasEntity> {
    const [row] = await rowsOf<WorkflowAliasEntity>(
      this.manager,
      `UPDATE workflow_aliases SET active = $3, updated_by = $4, updated_at = now() WHERE workflow_id = $1 AND name = $2
       RETURNING ${selectColumns(this.manager, WorkflowAliasEntity)}`,
      [workflowId, name, active, updatedBy],
    );
    return row;
  }
}
