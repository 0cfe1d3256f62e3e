/** Revisions and aliases of a workflow: reads, repoint, activate, deactivate, delete. */
import { Type } from '@sinclair/typebox';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { WorkflowAliasEntity } from '../../db/entities/workflow-alias';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowAliasRepository } from '../../db/repositories/workflow-alias-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { flowControlIssues } from '../../workflows/engine';
import { validationFailed } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { activate, deactivate, putAlias, removeAlias } from './activation';
import type { WorkflowDeps } from './deps';
import { aliasNameInvalid, aliasNotFound, revisionNotFound, revisionSourceNotKept } from './errors';
import { SOURCE_CONTENT_TYPES } from './revision-source';
import { Alias, AliasParams, NoFields, Paging, Revision, RevisionParams, WorkflowRef, page } from './schemas';
import { aliasJson, revisionJson } from './serialize';
import { triggerSummaries, triggersIn } from './trigger-summary';

const tags = ['Workflow revisions and aliases'];
const ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function checkAliasName(name: string, path = '/params/alias'): void {
  if (!ALIAS_NAME.test(name)) {
    throw aliasNameInvalid(path, ALIAS_NAME);
  }
}

/** An alias's own flow control is checked as a definition's is (workflows/engine/flow-control.ts). */
function checkAliasFlowControl(flowControl: Record<string, unknown> | null | undefined): void {
  if (!flowControl) return;
  const errors = [
    ...Object.keys(flowControl)
      .filter((key) => !['concurrency', 'throttle', 'debounce'].includes(key))
      .map((key) => ({ path: `/flowControl/${key}`, message: 'is not flow control (concurrency, throttle, debounce)' })),
    ...flowControlIssues(flowControl, (key) => `/flowControl/${key}`),
  ];
  if (errors.length > 0) throw validationFailed(errors, 'The alias flow control is not valid.');
}

export function aliasRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const revisions = new WorkflowRevisionRepository(deps.dataSource.manager);
  const aliases = new WorkflowAliasRepository(deps.dataSource.manager);
  const bindings = new TriggerBindingRepository(deps.dataSource.manager);
  const json = async (state: { alias: WorkflowAliasEntity; bindings: TriggerBindingEntity[] }) => {
    const triggers = await revisions.triggersOf(state.alias.workflowId, [state.alias.revision]);
    return aliasJson(state.alias, state.bindings, deps.publicBaseUrl, triggers.get(state.alias.revision));
  };
  /** An alias write's answer: the alias, with where each of its triggers is reached now (`triggers`). */
  const written = async (state: { alias: WorkflowAliasEntity; bindings: TriggerBindingEntity[] }) => {
    const row = await revisions.findRevision(state.alias.workflowId, state.alias.revision);
    const triggers = triggersIn(row?.definition);
    return {
      ...aliasJson(state.alias, state.bindings, deps.publicBaseUrl, triggers),
      triggers: triggerSummaries(state.alias.name, triggers, state.bindings, deps.publicBaseUrl),
    };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/revisions',
      operationId: 'listWorkflowRevisions',
      summary: 'List revisions (newest first)',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: WorkflowRef,
      query: Type.Object({ includeDefinition: Type.Optional(Type.Boolean({ default: false })), ...Paging }),
      responses: { 200: { description: 'A page of revisions', schema: page(Revision) } },
      async handler({ query, target: workflow }) {
        const pageNumber = query.page ?? 1;
        const limit = query.limit ?? 50;
        const { rows, total } = await revisions.listPage(workflow.id, {
          includeDefinition: query.includeDefinition === true,
          page: pageNumber,
          limit,
        });
        return { status: 200, body: { data: rows.map(revisionJson), page: pageNumber, limit, total } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/revisions/{n}',
      operationId: 'getWorkflowRevision',
      summary: 'Get one revision with its definition',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: RevisionParams,
      responses: { 200: { description: 'The revision', schema: Revision } },
      async handler({ params, target: workflow }) {
        const row = await revisions.findRevision(workflow.id, params.n);
        if (!row) throw revisionNotFound(params.n);
        return { status: 200, body: revisionJson(row) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/revisions/{n}/source',
      operationId: 'getWorkflowRevisionSource',
      summary: 'Get the text a revision was published from',
      description:
        'The body of the publish as sent, byte for byte (comments, key order and layout kept), answered with the ' +
        'content type it was sent as: application/yaml, or application/json for a JSON source. A publish that changed only ' +
        "workflow-level fields or the layout (mode overwritten) replaces the newest revision's source. 404 " +
        'revision-source-not-kept for a revision published before sources were kept: read its definition instead.',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: RevisionParams,
      responses: { 200: { description: 'The source text (YAML or JSON)', contentType: 'application/yaml', schema: Type.String() } },
      async handler({ params, target: workflow }) {
        const row = await revisions.findSource(workflow.id, params.n);
        if (!row) throw revisionNotFound(params.n);
        if (row.source === null || row.sourceFormat === null) throw revisionSourceNotKept(params.n);
        return { status: 200, body: row.source, headers: { 'content-type': SOURCE_CONTENT_TYPES[row.sourceFormat] } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/aliases',
      operationId: 'listWorkflowAliases',
      summary: 'List aliases with per-trigger state',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: WorkflowRef,
      responses: { 200: { description: 'Aliases', schema: Type.Object({ data: Type.Array(Alias) }) } },
      async handler({ target: workflow }) {
        const [rows, bound] = await Promise.all([aliases.listOf(workflow.id), bindings.ofAliases(workflow.id)]);
        const triggers = await revisions.triggersOf(workflow.id, [...new Set(rows.map((a) => a.revision))]);
        return {
          status: 200,
          body: { data: rows.map((alias) => aliasJson(alias, bound, deps.publicBaseUrl, triggers.get(alias.revision))) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/definitions/{id}/aliases/{alias}',
      operationId: 'getWorkflowAlias',
      summary: 'Get one alias',
      tags,
      access: { permission: 'workflow:read', on: 'workflow' },
      params: AliasParams,
      responses: { 200: { description: 'The alias', schema: Alias } },
      async handler({ params, target: workflow }) {
        const alias = await aliases.findAlias(workflow.id, params.alias);
        if (!alias) throw aliasNotFound(params.alias);
        return { status: 200, body: await json({ alias, bindings: await bindings.ofAliases(workflow.id, [alias.name]) }) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/workflows/definitions/{id}/aliases/{alias}',
      operationId: 'putWorkflowAlias',
      summary: 'Create or repoint an alias',
      description:
        "`latest` is reserved. Repointing an active alias moves its trigger registrations to the new revision atomically; its webhook URLs stay (a webhook step the new revision no longer has is retired). `triggers` says where each trigger is reached now. `flowControl` (`{concurrency | throttle | debounce}`, as a definition writes them) replaces the definition's flow control for runs under this alias; null clears it, absent keeps it.",
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.alias.put' },
      params: AliasParams,
      body: Type.Object(
        {
          revision: Type.Integer({ minimum: 1 }),
          metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
          flowControl: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: 'Repointed', schema: Alias }, 201: { description: 'Created', schema: Alias } },
      errors: [409, 502],
      async handler({ params, body, auth, audit }) {
        checkAliasName(params.alias);
        checkAliasFlowControl(body.flowControl);
        const state = await putAlias(deps, auth, params.id, params.alias, body, audit);
        return { status: state.created ? 201 : 200, body: await written(state) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/{id}/aliases',
      operationId: 'createWorkflowAlias',
      summary: 'Create an alias (409 when it exists)',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.alias.create' },
      params: WorkflowRef,
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 63 }),
          revision: Type.Integer({ minimum: 1 }),
          metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 201: { description: 'Created', schema: Alias } },
      errors: [409],
      async handler({ params, body, auth, audit }) {
        checkAliasName(body.name, '/name');
        const state = await putAlias(deps, auth, params.id, body.name, { revision: body.revision, metadata: body.metadata }, audit, true);
        return { status: 201, body: await written(state) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/{id}/aliases/{alias}/activate',
      operationId: 'activateWorkflowAlias',
      summary: 'Register the triggers of the alias revision',
      description:
        'All or nothing: if one trigger fails to register, the others are torn down, the alias stays inactive and each trigger state is failed. Activation mints new webhook URLs (rotation); `triggers` lists them.',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.alias.activate' },
      params: AliasParams,
      body: NoFields,
      bodyOptional: true,
      responses: { 200: { description: 'Activated', schema: Type.Object({ alias: Alias }) } },
      errors: [502],
      async handler({ params, auth, audit }) {
        return { status: 200, body: { alias: await written(await activate(deps, auth, params.id, params.alias, audit)) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/{id}/aliases/{alias}/deactivate',
      operationId: 'deactivateWorkflowAlias',
      summary: 'Tear down the alias triggers (best effort)',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.alias.deactivate' },
      params: AliasParams,
      body: NoFields,
      bodyOptional: true,
      responses: {
        200: {
          description: 'Deactivated',
          schema: Type.Object({
            alias: Alias,
            deactivatedTriggers: Type.Array(Type.String()),
            deactivateError: Type.Optional(Type.String()),
          }),
        },
      },
      async handler({ params, auth, audit }) {
        const result = await deactivate(deps, auth, params.id, params.alias, audit);
        return {
          status: 200,
          body: {
            alias: await json(result),
            deactivatedTriggers: result.deactivatedTriggers,
            ...(result.deactivateError ? { deactivateError: result.deactivateError } : {}),
          },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/definitions/{id}/aliases/{alias}',
      operationId: 'deleteWorkflowAlias',
      summary: 'Delete an alias (409 while active)',
      tags,
      access: { permission: 'workflow:write', on: 'workflow' },
      audit: { action: 'workflow.alias.delete' },
      params: AliasParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      async handler({ params, auth, audit }) {
        await removeAlias(deps, auth, params.id, params.alias, audit);
        return { status: 204 };
      },
    }),
  ];
}
