/**
 * The `trigger_bindings` table: what alias activation registered. One binding
 * per (alias, trigger) and one live webhook token anywhere (unique constraints).
 */
import { Repository, type EntityManager } from 'typeorm';
import { TriggerBindingEntity, type TriggerBindingStatus } from '../entities/trigger-binding';
import { rowsOf, selectColumns } from '../sql';

/** A binding about to be written; `activated` stamps activated_at. */
export type BindingWrite = Omit<TriggerBindingEntity, 'activatedAt' | 'deactivatedAt' | 'updatedAt'> & { activated: boolean };

export class TriggerBindingRepository extends Repository<TriggerBindingEntity> {
  constructor(manager: EntityManager) {
    super(TriggerBindingEntity, manager);
  }

  /** The bindings of a workflow, or of some of its aliases. */
  async ofAliases(workflowId: string, aliasNames?: string[]): Promise<TriggerBindingEntity[]> {
    return rowsOf<TriggerBindingEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, TriggerBindingEntity)} FROM trigger_bindings
       WHERE workflow_id = $1 AND ($2::text[] IS NULL OR alias_name = ANY($2::text[])) ORDER BY alias_name, trigger_id`,
      [workflowId, aliasNames ?? null],
    );
  }

  /** Replaces every binding of an alias with the given set (one DELETE, one multi-row INSERT). */
  async replaceAll(workflowId: string, aliasName: string, bindings: BindingWrite[]): Promise<void> {
    await this.delete({ workflowId, aliasName });
    if (bindings.length === 0) return;
    await this.manager.query(
      `INSERT INTO trigger_bindings (workflow_id, alias_name, trigger_id, organization_id, plugin_type, revision, status, webhook_token, schedule_id,
         activated_at, last_error, runtime_metadata)
       SELECT $1, $2, b."triggerId", b."organizationId", b."pluginType", b.revision, b.status, b."webhookToken", b."scheduleId",
         CASE WHEN b.activated THEN now() END, b."lastError", b."runtimeMetadata"
       FROM jsonb_to_recordset($3::jsonb) AS b("triggerId" text, "organizationId" text, "pluginType" text, revision integer, status text,
         "webhookToken" text, "scheduleId" text, activated boolean, "lastError" jsonb, "runtimeMetadata" jsonb)`,
      [workflowId, aliasName, JSON.stringify(bindings)],
    );
  }

  /** Deactivation: bindings stay listed as inactive, with their webhook token and schedule cleared. */
  async deactivateAll(workflowId: string, aliasName: string): Promise<void> {
    await this.manager.query(
      `UPDATE trigger_bindings SET status = 'inactive', webhook_token = NULL, schedule_id = NULL, deactivated_at = now(), updated_at = now()
       WHERE workflow_id = $1 AND alias_name = $2`,
      [workflowId, aliasName],
    );
  }

  async listInOrganization(
    organizationId: string,
    filter: { workflowId?: string; status?: TriggerBindingStatus },
  ): Promise<TriggerBindingEntity[]> {
    return this.find({
      // Find options refuse undefined values: absent filters are left out.
      where: {
        organizationId,
        ...(filter.workflowId !== undefined ? { workflowId: filter.workflowId } : {}),
        ...(filter.status !== undefined ? { status: filter.status } : {}),
      },
      order: { workflowId: 'ASC', aliasName: 'ASC', triggerId: 'ASC' },
    });
  }

  /** The organization's live bindings of the given trigger kinds (recovery triggers are routed by storage, from any replica). */
  async liveOfKinds(organizationId: string, pluginTypes: string[]): Promise<TriggerBindingEntity[]> {
    return rowsOf<TriggerBindingEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, TriggerBindingEntity)} FROM trigger_bindings
       WHERE organization_id = $1 AND status = 'live' AND plugin_type = ANY($2::text[]) ORDER BY workflow_id, alias_name, trigger_id`,
      [organizationId, pluginTypes],
    );
  }

  /** The live binding a webhook token routes to, in any organization; undefined once deactivated or re-minted. */
  async findLiveByWebhookToken(token: string): Promise<TriggerBindingEntity | undefined> {
    return (await this.findOneBy({ webhookToken: token, status: 'live' })) ?? undefined;
  }
}
