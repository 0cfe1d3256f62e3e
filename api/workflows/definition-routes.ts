/** POST/PUT/GET/PATCH/DELETE /workflows/definitions and POST /workflows/definitions/validate. */
import { Type } from '@sinclair/typebox';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { normalizeFolderPath } from '../../workflows/engine';
import { workflowNrn } from '../access/workflow-reach';
import { validationFailed, type FieldError } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { WorkflowDeps } from './deps';
import { workflowHasActiveAlias, workflowNotFound } from './errors';
import { refuseEnvelope } from './definition-envelope';
import { Publisher } from './publish-workflow';
import { sentSource } from './revision-source';
import { deleteWorkflow } from './workflow-writes';
import { DefinitionBody, Paging, PublishResult, ValidationReport, Workflow, WorkflowKeyParam, WorkflowRef, page } from './schemas';
import { workflowJson } from './serialize';
import { validationReport } from './validation-report';

const tags = ['Workflow definitions'];

/**
 * Release notes beside the body rather than in it: a body sent as the author wrote it (kept as the
 * revision's source) stays as written, and the notes of this publish still reach the revision.
 */
const PublishQuery = Type.Object({
  releaseNotes: Type.Optional(
    Type.String({ maxLength: 2000, description: "the revision's release notes; takes the place of a releaseNotes key in the body" }),
  ),
});

export function definitionRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const workflows = new WorkflowRepository(deps.dataSource.manager);
  const publisher = new Publisher(deps);
  return [
    defineRoute({
      method: 'post',
      path: '/workflows/definitions',
      operationId: 'createWorkflowDefinition',
      summary: 'Create a workflow (revision 1, alias latest)',
      tags,
      access: { permission: 'workflow:write', inHandler: "the definition's NRN, decided on the grants its insert checks" },
      audit: { action: 'workflow.definition.create' },
      query: PublishQuery,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 201: { description: 'Created', schema: PublishResult } },
      errors: [409],
      handler: ({ query, body, auth, permission, audit, ctx }) =>
        publisher.createWorkflow({ auth, permission, audit, body, releaseNotes: query.releaseNotes, source: sentSource(ctx) }),
    }),
    defineRoute({
      method: 'put',
      path: '/workflows/definitions/{id}',
      operationId: 'upsertWorkflowDefinition',
      summary: 'Create or update a workflow by its client key, or update one by its id',
      description:
        'mode: created (new workflow), new-revision (content changed), overwritten (content identical to the newest revision; only workflow-level fields change). ' +
        'By id (wf_…), the workflow must exist (404 otherwise) and keeps its key.',
      tags,
      access: { permission: 'workflow:write', inHandler: "the definition's NRN and the NRN the workflow had, if it exists" },
      params: WorkflowKeyParam,
      query: PublishQuery,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Updated', schema: PublishResult }, 201: { description: 'Created', schema: PublishResult } },
      audit: { action: 'workflow.definition.publish' },
      handler: ({ params, query, body, auth, permission, audit, ctx }) =>
        publisher.upsertWorkflow({ auth, permission, audit, body, releaseNotes: query.releaseNotes, source: sentSource(ctx) }, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/validate',
      operationId: 'validateWorkflowDefinition',
      summary: 'Validate a definition without saving it',
      tags,
      access: { permission: 'workflow:read', on: 'organization' },
      audit: { none: 'validation only: nothing is written' },
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Validation report (the same errors and warnings as publishing)', schema: ValidationReport } },
      async handler({ body, auth }) {
        refuseEnvelope(body);
        const key = typeof body === 'object' && body !== null && typeof body.key === 'string' ? body.key : undefined;
        const existing = key ? await workflows.findByRef(auth.organizationId, key) : undefined;
        return { status: 200, body: await validationReport(deps, body, auth.organizationId, existing?.id ?? null) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/{id}/validate',
      operationId: 'validateWorkflowDefinitionFor',
      summary: 'Validate a definition as a new revision of a workflow',
      description: 'Config warnings consider the entries of that workflow as well as its folders.',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      audit: { none: 'validation only: nothing is written' },
      params: WorkflowRef,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Validation report', schema: ValidationReport } },
      async handler({ body, auth, target: workflow }) {
        refuseEnvelope(body);
        return { status: 200, body: await validationReport(deps, body, auth.organizationId, workflow.id) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions',
      operationId: 'listWorkflowDefinitions',
      summary: 'List workflows',
      tags,
      // Listing needs the permission on the whole organization (docs/security.md, "Permissions").
      access: { permission: 'workflow:read', on: 'organization' },
      query: Type.Object({
        path: Type.Optional(Type.String({ description: 'folder prefix' })),
        text: Type.Optional(Type.String({ maxLength: 200 })),
        ...Paging,
      }),
      responses: { 200: { description: 'A page of workflows', schema: page(Workflow) } },
      async handler({ query, auth }) {
        const pageNumber = query.page ?? 1;
        const limit = query.limit ?? 50;
        let path: string | undefined;
        if (query.path !== undefined) {
          path = normalizeFolderPath(query.path);
          if (path === undefined) throw validationFailed([{ path: '/query/path', message: 'must be an absolute folder path' }]);
        }
        const { rows, total } = await workflows.listPage(auth.organizationId, {
          path,
          text: query.text,
          page: pageNumber,
          limit,
        });
        return { status: 200, body: { data: rows.map(workflowJson), page: pageNumber, limit, total } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}',
      operationId: 'getWorkflowDefinition',
      summary: 'Get a workflow by id or key',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: WorkflowRef,
      responses: { 200: { description: 'The workflow', schema: Workflow } },
      handler: ({ target: workflow }) => ({ status: 200, body: workflowJson(workflow) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/workflows/definitions/{id}',
      operationId: 'patchWorkflowDefinition',
      summary: 'Update workflow-level fields (no new revision)',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.definition.update' },
      params: WorkflowRef,
      body: Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1 })),
          description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          path: Type.Optional(Type.String()),
          metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: 'The workflow', schema: Workflow } },
      async handler({ body, audit, target: workflow }) {
        const errors: FieldError[] = [];
        let path: string | undefined;
        if (body.path !== undefined) {
          path = normalizeFolderPath(body.path);
          if (path === undefined) errors.push({ path: '/path', message: 'must be an absolute folder path such as /team/payments' });
        }
        if (body.name !== undefined && body.name.trim() === '') errors.push({ path: '/name', message: 'must be a non-empty string' });
        if (errors.length > 0) throw validationFailed(errors);
        const changes = { ...body, ...(path !== undefined ? { path } : {}) };
        const updated = await deps.dataSource.transaction(async (m) => {
          const row = await new WorkflowRepository(m).updateFields(workflow.id, changes);
          await audit.record(m, { nrn: workflowNrn(row), id: row.id, details: { key: row.key, changed: Object.keys(changes).sort() } });
          return row;
        });
        return { status: 200, body: workflowJson(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/definitions/{id}',
      operationId: 'deleteWorkflowDefinition',
      summary: 'Delete a workflow (409 while an alias is active)',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.definition.delete' },
      params: WorkflowRef,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      async handler({ params, auth, audit }) {
        const outcome = await deleteWorkflow(deps.dataSource, auth.organizationId, params.id, audit);
        if (outcome === 'not-found') throw workflowNotFound(params.id);
        if (outcome === 'active') throw workflowHasActiveAlias();
        return { status: 204 };
      },
    }),
  ];
}
