/**
 * The `trigger_bindings` table: what alias activation registered. One binding
 * per (alias, trigger) and one live webhook token anywhere (unique constraints).
 */
import { Repository, type EntityManager } from 'typeorm';
import { TriggerBindingEntity, type TriggerBindingStatus } from '../entities/trigger-binding';
import type { WorkflowEntity } from '../entities/workflow';
import { rowsOf, selectColumns } from '../sql';

/** A binding about to be written; `activated` stamps activated_at. */
export type BindingWrite = Omit<TriggerBindingEntity, 'activatedAt' | 'deactivatedAt' | 'updatedAt'> & { activated: boolean };

/** What decides a workflow's NRN (its own, else its organization's). */
type WorkflowNrnRow = Pick<WorkflowEntity, 'nrn' | 'organizationId'>;

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
    await rowsOf(
      this.manager,
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
    await rowsOf(
      this.manager,
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

  /**
   * The organization's live bindings of the given trigger kinds (recovery triggers are routed by
   * storage, from any replica), each with its workflow's NRN as it is now, and the NRN of
   * `aboutWorkflowId` (the failed run's workflow; null fields: no such workflow), in one statement.
   */
  async liveOfKinds(
    organizationId: string,
    pluginTypes: string[],
    aboutWorkflowId: string,
  ): Promise<Array<TriggerBindingEntity & { workflow: WorkflowNrnRow; about: WorkflowNrnRow | null }>> {
    const rows = await rowsOf<
      TriggerBindingEntity & { workflowNrn: string | null; aboutNrn: string | null; aboutOrganizationId: string | null }
    >(
      this.manager,
      `SELECT ${selectColumns(this.manager, TriggerBindingEntity, 'b')}, w.nrn AS "workflowNrn",
         about.nrn AS "aboutNrn", about.organization_id AS "aboutOrganizationId"
       FROM trigger_bindings b
       JOIN workflows w ON w.id = b.workflow_id
       LEFT JOIN workflows about ON about.id = $3 AND about.organization_id = $1
       WHERE b.organization_id = $1 AND b.status = 'live' AND b.plugin_type = ANY($2::text[])
       ORDER BY b.workflow_id, b.alias_name, b.trigger_id`,
      [organizationId, pluginTypes, aboutWorkflowId],
    );
    return rows.map(({ workflowNrn, aboutNrn, aboutOrganizationId, ...binding }) => ({
      ...binding,
      workflow: { nrn: workflowNrn, organizationId: binding.organizationId },
      about: aboutOrganizationId === null ? null : { nrn: aboutNrn, organizationId: aboutOrganizationId },
    }));
  }

  /** The live binding a webhook token routes to, in any organization; undefined once deactivated or re-minted. */
  async findLiveByWebhookToken(token: string): Promise<TriggerBindingEntity | undefined> {
    return (await this.findOneBy({ webhookToken: token, status: 'live' })) ?? undefined;
  }
}
