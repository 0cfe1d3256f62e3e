/**
 * How long ended executions are kept: the organization's own setting
 * (`/workflows/retention`) and a workflow's override
 * (`/workflows/definitions/{id}/retention`), resolved workflow → organization
 * → EXECUTION_RETENTION_DAYS. The sweep reads the settings when it runs
 * (executions/retention-sweep.ts), so a change applies to executions that
 * ended before it too. Running and waiting executions are never removed.
 */
import { Type } from '@sinclair/typebox';
import type { ExecutionRetentionEntity } from '../../db/entities/execution-retention';
import { ORGANIZATION_WIDE } from '../../db/entities/execution-retention';
import { ExecutionRetentionRepository } from '../../db/repositories/execution-retention-repository';
import { organizationNrn } from '../access/nrn';
import type { AuditTrail } from '../audit/trail';
import { iso } from '../http/iso-date';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { WorkflowDeps } from './deps';
import { WorkflowRef } from './schemas';

const tags = ['Execution retention'];
export const MAX_RETENTION_DAYS = 3650;

const RetentionBody = Type.Object(
  {
    retentionDays: Type.Integer({
      minimum: 1,
      maximum: MAX_RETENTION_DAYS,
      description: `days an ended execution is kept after it ended (1 to ${MAX_RETENTION_DAYS})`,
    }),
  },
  { additionalProperties: false },
);

const Retention = Type.Object({
  organizationId: Type.String(),
  workflowId: Type.Optional(Type.String()),
  retentionDays: Type.Union([Type.Integer(), Type.Null()], {
    description: 'days ended executions are kept in effect here; null: kept forever (EXECUTION_RETENTION_DAYS=0 and no setting)',
  }),
  source: Type.Union([Type.Literal('workflow'), Type.Literal('organization'), Type.Literal('default')], {
    description: 'where the days in effect come from',
  }),
  defaultDays: Type.Union([Type.Integer(), Type.Null()], { description: "the service's EXECUTION_RETENTION_DAYS (null: forever)" }),
  updatedAt: Type.Optional(Type.String({ format: 'date-time', description: "when this level's own setting was last set" })),
  updatedBy: Type.Optional(Type.String()),
});

interface Resolved {
  organizationId: string;
  workflowId?: string;
  own?: ExecutionRetentionEntity;
  workflowDays?: number;
  organizationDays?: number;
}

function retentionJson(resolved: Resolved, defaultDays: number): Record<string, unknown> {
  const { workflowDays, organizationDays, own } = resolved;
  const source = workflowDays !== undefined ? 'workflow' : organizationDays !== undefined ? 'organization' : 'default';
  const days = workflowDays ?? organizationDays ?? (defaultDays > 0 ? defaultDays : null);
  return {
    organizationId: resolved.organizationId,
    ...(resolved.workflowId !== undefined ? { workflowId: resolved.workflowId } : {}),
    retentionDays: days,
    source,
    defaultDays: defaultDays > 0 ? defaultDays : null,
    ...(own ? { updatedAt: iso(own.updatedAt) } : {}),
    ...(own?.updatedBy ? { updatedBy: own.updatedBy } : {}),
  };
}

/** Sets or removes one level's setting and records it in the audit trail, in one transaction. */
async function changeSetting(
  deps: WorkflowDeps,
  audit: AuditTrail,
  target: { organizationId: string; workflowId: string; nrn: string | null; userId: string },
  retentionDays: number | undefined,
): Promise<{ created: boolean }> {
  return deps.dataSource.transaction(async (manager) => {
    const repository = new ExecutionRetentionRepository(manager);
    const { organizationId, workflowId, nrn, userId } = target;
    const result =
      retentionDays === undefined
        ? (await repository.removeSetting(organizationId, workflowId), { created: false })
        : await repository.put(organizationId, workflowId, retentionDays, userId);
    await audit.record(manager, {
      nrn,
      id: workflowId === ORGANIZATION_WIDE ? organizationId : workflowId,
      details: { retentionDays: retentionDays ?? null },
    });
    return result;
  });
}

export function retentionRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const settings = new ExecutionRetentionRepository(deps.dataSource.manager);
  const organizationView = async (organizationId: string) => {
    const own = await settings.settingOf(organizationId);
    return retentionJson({ organizationId, own, organizationDays: own?.retentionDays }, deps.executionRetentionDays);
  };
  const workflowView = async (organizationId: string, workflowId: string) => {
    const [own, both] = await Promise.all([
      settings.settingOf(organizationId, workflowId),
      settings.settingsFor(organizationId, workflowId),
    ]);
    return retentionJson(
      { organizationId, workflowId, own, workflowDays: both.workflow, organizationDays: both.organization },
      deps.executionRetentionDays,
    );
  };
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/retention',
      operationId: 'getOrganizationRetention',
      summary: "The organization's execution retention",
      description: 'Days ended executions of the organization are kept (workflows may override), and where that comes from.',
      tags,
      access: { permission: 'workflow:read', on: 'organization' },
      responses: { 200: { description: 'The retention in effect', schema: Retention } },
      async handler({ auth }) {
        return { status: 200, body: await organizationView(auth.organizationId) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/workflows/retention',
      operationId: 'putOrganizationRetention',
      summary: "Set the organization's execution retention",
      description: 'Applies at the next sweep, also to executions that ended before. Running and waiting executions are never removed.',
      tags,
      access: { permission: 'workflow:write', on: 'organization' },
      audit: { action: 'workflow.retention.put' },
      body: RetentionBody,
      responses: { 200: { description: 'Replaced', schema: Retention }, 201: { description: 'Set', schema: Retention } },
      async handler({ body, auth, audit }) {
        const target = {
          organizationId: auth.organizationId,
          workflowId: ORGANIZATION_WIDE,
          nrn: organizationNrn(auth.organizationId),
          userId: auth.userId,
        };
        const { created } = await changeSetting(deps, audit, target, body.retentionDays);
        return { status: created ? 201 : 200, body: await organizationView(auth.organizationId) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/retention',
      operationId: 'deleteOrganizationRetention',
      summary: "Remove the organization's execution retention (back to the service default)",
      tags,
      access: { permission: 'workflow:write', on: 'organization' },
      audit: { action: 'workflow.retention.delete' },
      responses: { 204: { description: 'Removed (or there was none)' } },
      async handler({ auth, audit }) {
        const target = {
          organizationId: auth.organizationId,
          workflowId: ORGANIZATION_WIDE,
          nrn: organizationNrn(auth.organizationId),
          userId: auth.userId,
        };
        await changeSetting(deps, audit, target, undefined);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/retention',
      operationId: 'getWorkflowRetention',
      summary: "A workflow's execution retention",
      description: "Days the workflow's ended executions are kept, and where that comes from (workflow, organization or default).",
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: WorkflowRef,
      responses: { 200: { description: 'The retention in effect', schema: Retention } },
      async handler({ auth, target: workflow }) {
        return { status: 200, body: await workflowView(auth.organizationId, workflow.id) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/workflows/definitions/{id}/retention',
      operationId: 'putWorkflowRetention',
      summary: "Set a workflow's execution retention (overrides the organization's)",
      description: 'Applies at the next sweep, also to executions that ended before. Running and waiting executions are never removed.',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.retention.put' },
      params: WorkflowRef,
      body: RetentionBody,
      responses: { 200: { description: 'Replaced', schema: Retention }, 201: { description: 'Set', schema: Retention } },
      async handler({ body, auth, audit, target: workflow }) {
        const target = { organizationId: auth.organizationId, workflowId: workflow.id, nrn: workflow.nrn, userId: auth.userId };
        const { created } = await changeSetting(deps, audit, target, body.retentionDays);
        return { status: created ? 201 : 200, body: await workflowView(auth.organizationId, workflow.id) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/definitions/{id}/retention',
      operationId: 'deleteWorkflowRetention',
      summary: "Remove a workflow's execution retention (back to the organization's)",
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.retention.delete' },
      params: WorkflowRef,
      responses: { 204: { description: 'Removed (or there was none)' } },
      async handler({ auth, audit, target: workflow }) {
        const target = { organizationId: auth.organizationId, workflowId: workflow.id, nrn: workflow.nrn, userId: auth.userId };
        await changeSetting(deps, audit, target, undefined);
        return { status: 204 };
      },
    }),
  ];
}
