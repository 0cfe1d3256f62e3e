/** POST/PUT/GET/PATCH/DELETE /workflows/definitions and POST /workflows/definitions/validate. */
import { Type } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowRepository, type PublishNewOutcome, type Published } from '../../db/repositories/workflow-repository';
import { isUniqueViolation } from '../../db/sql';
import { definitionBytesIssue, normalizeFolderPath, validateDefinition } from '../../workflows/engine';
import { accessOf, loadAccess, type Access } from '../access/access';
import { canonicalNrn, organizationNrn } from '../access/nrn';
import { RecentAccess } from '../access/recent-access';
import type { AuthContext, UserType } from '../http/auth';
import { HttpError, conflict, forbidden, validationFailed, type FieldError } from '../http/errors';
import type { Permission } from '../http/permissions';
import { defineRoute, type HandlerResult, type RouteDefinition } from '../http/route';
import { definitionSummary } from '../audit/definition-diff';
import type { AuditTrail } from '../audit/trail';
import { LATEST, activate } from './activation';
import type { WorkflowDeps } from './deps';
import { workflowNotFound } from './errors';
import { newWorkflowId } from './ids';
import { authorizeInOrganization, authorizedWorkflow, organizationNotFound, workflowNrn } from './authorize';
import { declaredSchemaErrors } from './declared-schemas';
import { typeScriptErrors } from './typescript-scripts';
import { refuseEnvelope } from './definition-envelope';
import { sentSource } from './revision-source';
import { WORKFLOW_LEVEL_KEYS, boundReferences, configWarnings, prepare, publishWarnings, type PublishWarning } from './publish';
import { deleteWorkflow, publishOnExisting } from './workflow-writes';
import { DefinitionBody, Paging, PublishResult, ValidationReport, Workflow, WorkflowKeyParam, WorkflowRef, page } from './schemas';
import { aliasJson, revisionJson, workflowJson } from './serialize';
import { triggerSummaries, triggersIn } from './trigger-summary';

const tags = ['Workflow definitions'];

/**
 * Publishing writes at the definition's NRN and, onto an existing workflow, at the
 * NRN it had: `workflow:write` is needed on both (moving a workflow is writing in both places).
 */
function requirePublish(access: Access, permission: Permission, nrn: string, existing?: WorkflowEntity): void {
  if (existing) access.require(permission, workflowNrn(existing), () => workflowNotFound(existing.key ?? existing.id));
  access.require(permission, nrn, organizationNotFound(access.caller.organizationId));
}

/** How often a publish decides again on grants that changed under it before answering 409. */
const PUBLISH_GRANT_ROUNDS = 3;

/**
 * Writes a new workflow under the caller's grants (WorkflowRepository.publishNew
 * checks them in the write's own statement): decides on `access`, and when the
 * statement finds the grants changed, decides again on the grants it answers.
 * Answers the outcome and the access it was written under.
 */
async function publishUnderGrants(
  access: Access,
  decide: (access: Access) => void,
  write: (under: { userId: string; userType: UserType; grantsAsOf: string }) => Promise<PublishNewOutcome>,
): Promise<{ result: Exclude<PublishNewOutcome, { outcome: 'grants-changed' }>; access: Access }> {
  for (let round = 1; ; round += 1) {
    decide(access);
    const result = await write({ userId: access.caller.userId, userType: access.caller.userType, grantsAsOf: access.grantsAsOf });
    if (result.outcome !== 'grants-changed') return { result, access };
    if (round === PUBLISH_GRANT_ROUNDS) throw conflict('Your grants changed while publishing; retry the request.', 'publish-conflict');
    access = accessOf(access.caller, result.grantsNow);
  }
}

/**
 * A new workflow's insert (one statement) and its audit event, in one transaction. The event holds what
 * revision 1 is (its steps and connections), never values; a publish that wrote nothing records nothing.
 */
function publishNewRecorded(
  dataSource: DataSource,
  audit: AuditTrail,
  insert: (workflows: WorkflowRepository) => Promise<PublishNewOutcome>,
): Promise<PublishNewOutcome> {
  return dataSource.transaction(async (m) => {
    const result = await insert(new WorkflowRepository(m));
    if (result.outcome === 'published') {
      const { workflow, revision } = result;
      await audit.record(m, {
        nrn: workflowNrn(workflow),
        id: workflow.id,
        details: {
          key: workflow.key,
          mode: 'created',
          revision: revision.revision,
          ...definitionSummary(revision.definition),
        },
      });
    }
    return result;
  });
}

/** Whether `decide` lets the access through. */
function permits(access: Access, decide: (access: Access) => void): boolean {
  try {
    decide(access);
    return true;
  } catch (error) {
    if (error instanceof HttpError) return false;
    throw error;
  }
}

async function validationReport(deps: WorkflowDeps, body: unknown, organizationId: string, workflowId: string | null) {
  const result = validateDefinition(body, { limits: deps.limits, plugins: deps.plugins });
  const tooLarge = result.definition && definitionBytesIssue(JSON.stringify(result.definition), deps.limits);
  if (!result.definition || tooLarge) return { valid: false, errors: tooLarge ? [tooLarge] : result.errors, warnings: [] };
  const schemaErrors = [...declaredSchemaErrors(result.definition, body), ...typeScriptErrors(result.definition, body)];
  if (schemaErrors.length > 0) return { valid: false, errors: schemaErrors, warnings: [] };
  // Entries within the NRN the definition names (an NRN publishing would refuse reaches none).
  const nrn = result.definition.nrn === undefined ? organizationNrn(organizationId) : (canonicalNrn(result.definition.nrn) ?? '');
  const warnings = await configWarnings(
    deps.dataSource,
    organizationId,
    workflowId,
    { path: result.definition.path, nrn },
    boundReferences(result.references, result.definition),
    result.warnings,
  );
  return { valid: true, errors: [], warnings };
}

/**
 * Release notes beside the body rather than in it: a body sent as the author wrote it (kept as the
 * revision's source) stays as written, and the notes of this publish still reach the revision.
 */
const PublishQuery = Type.Object({
  releaseNotes: Type.Optional(
    Type.String({ maxLength: 2000, description: "the revision's release notes; takes the place of a releaseNotes key in the body" }),
  ),
});

function withReleaseNotes(body: unknown, releaseNotes: string | undefined): unknown {
  if (releaseNotes === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...body, releaseNotes };
}

/** The upsert's body under the workflow's key (a workflow without one gets none). */
function withKey(body: unknown, key: string | null): unknown {
  if (key !== null) return { ...(body as object), key };
  const { key: _none, ...rest } = { ...(body as object) } as Record<string, unknown>;
  return rest;
}

export function definitionRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const workflows = new WorkflowRepository(deps.dataSource.manager);
  const recentAccess = new RecentAccess();
  /**
   * The access a publish decides on: the caller's access at its last publish when
   * that permits this one (the write checks it is still current), else grants read
   * afresh; a refusal is always decided on grants read afresh.
   */
  const publishAccess = async (auth: AuthContext, decide: (access: Access) => void): Promise<Access> => {
    const remembered = recentAccess.of(auth);
    return remembered && permits(remembered, decide) ? remembered : loadAccess(deps.dataSource, auth);
  };
  /**
   * PublishResult as JSON text. The definition was serialized once already
   * (to store it); its text is spliced in instead of serializing ~10 KB again.
   */
  const publishResult = (
    published: Published,
    warnings: PublishWarning[],
    mode?: string,
    definitionJson?: string,
    /** The bindings of an active `latest` (none otherwise). */
    bindings: TriggerBindingEntity[] = [],
  ): HandlerResult['body'] => {
    const latestAlias = aliasJson(published.latestAlias, bindings, deps.publicBaseUrl, published.revision.definition.triggers);
    const triggers = triggerSummaries(LATEST, triggersIn(published.revision.definition), bindings, deps.publicBaseUrl);
    const revision = revisionJson(published.revision);
    if (definitionJson === undefined)
      return { workflow: workflowJson(published.workflow), revision, latestAlias, ...(mode ? { mode } : {}), warnings, triggers };
    const { definition: _definition, ...rest } = revision;
    return (
      `{"workflow":${JSON.stringify(workflowJson(published.workflow))},"revision":${JSON.stringify(rest).slice(0, -1)},"definition":${definitionJson}}` +
      `,"latestAlias":${JSON.stringify(latestAlias)}${mode ? `,"mode":${JSON.stringify(mode)}` : ''},"warnings":${JSON.stringify(warnings)}` +
      `,"triggers":${JSON.stringify(triggers)}}`
    );
  };
  const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
  /**
   * A POST whose key another workflow holds: 409 to a caller who may read that workflow
   * (as today); 403 to one who may not, as a PUT of the key refuses them, without the
   * workflow's details (its NRN). Decided on grants read afresh, on this rare path only.
   */
  const keyTaken = async (auth: AuthContext, key: string | null): Promise<HttpError> => {
    const existing = key === null ? undefined : await workflows.findByRef(auth.organizationId, key);
    if (existing && !(await loadAccess(deps.dataSource, auth)).can('workflow:read', workflowNrn(existing)))
      return forbidden(`The key "${key}" cannot be used: you do not have permission on the workflow that holds it.`);
    return conflict(`A workflow with key "${key}" already exists.`, 'workflow-key-conflict');
  };

  return [
    defineRoute({
      method: 'post',
      path: '/workflows/definitions',
      operationId: 'createWorkflowDefinition',
      summary: 'Create a workflow (revision 1, alias latest)',
      tags,
      access: { permission: 'workflow:write' },
      audit: { action: 'workflow.definition.create' },
      query: PublishQuery,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 201: { description: 'Created', schema: PublishResult } },
      errors: [409],
      async handler({ query, body, auth, permission, audit, ctx }) {
        refuseEnvelope(body);
        const prepared = prepare(withReleaseNotes(body, query.releaseNotes), auth, deps.limits, deps.plugins, sentSource(ctx));
        const decide = (access: Access) => requirePublish(access, permission, prepared.fields.nrn);
        const id = newWorkflowId();
        let published;
        try {
          const { result, access } = await publishUnderGrants(await publishAccess(auth, decide), decide, (under) =>
            publishNewRecorded(deps.dataSource, audit, (w) =>
              w.publishNew({ id, organizationId: auth.organizationId, key: prepared.key }, prepared.fields, prepared.revision, under),
            ),
          );
          if (result.outcome !== 'published') throw new Error('workflow insert returned no row');
          recentAccess.remember(access);
          published = result;
        } catch (error) {
          if (isUniqueViolation(error)) throw await keyTaken(auth, prepared.key);
          throw error;
        }
        const warnings = await publishWarnings(deps.dataSource, auth.organizationId, id, prepared);
        return { status: 201, body: publishResult(published, warnings, undefined, prepared.revision.definitionJson), headers: JSON_TYPE };
      },
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
      access: { permission: 'workflow:write' },
      params: WorkflowKeyParam,
      query: PublishQuery,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Updated', schema: PublishResult }, 201: { description: 'Created', schema: PublishResult } },
      audit: { action: 'workflow.definition.publish' },
      async handler({ params, query, body, auth, permission, audit, ctx }) {
        refuseEnvelope(body);
        // By id: a new revision of that workflow, under the key it has (a `wf_…` id never matches the key pattern).
        const byId = params.id.startsWith('wf_') ? await workflows.findByRef(auth.organizationId, params.id) : undefined;
        if (params.id.startsWith('wf_') && byId?.id !== params.id) throw workflowNotFound(params.id);
        const key = byId ? byId.key : params.id;
        if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'key' in body && body.key !== key) {
          const message = key === null ? 'must be left out: the workflow has no key' : `must equal the workflow's key ("${key}")`;
          throw validationFailed([{ path: '/key', message }], undefined, 'graph-invalid');
        }
        const prepared = prepare(
          withReleaseNotes(withKey(body, key), query.releaseNotes),
          auth,
          deps.limits,
          deps.plugins,
          sentSource(ctx),
        );
        const existing = byId ?? (await workflows.findByRef(auth.organizationId, params.id));
        const decide = (access: Access) => requirePublish(access, permission, prepared.fields.nrn, existing);
        if (byId) {
          const access = await publishAccess(auth, decide);
          decide(access);
          recentAccess.remember(access);
        } else {
          const id = newWorkflowId();
          // Try to create first (one statement); an existing key falls through to the locked update path.
          const { result: created, access } = await publishUnderGrants(await publishAccess(auth, decide), decide, (under) =>
            publishNewRecorded(deps.dataSource, audit, (w) =>
              w.publishNew({ id, organizationId: auth.organizationId, key: params.id }, prepared.fields, prepared.revision, under, true),
            ),
          );
          recentAccess.remember(access);
          if (created.outcome === 'published') {
            const warnings = await publishWarnings(deps.dataSource, auth.organizationId, id, prepared);
            return { status: 201, body: publishResult(created, warnings, 'created', prepared.revision.definitionJson), headers: JSON_TYPE };
          }
        }
        const outcome = await publishOnExisting(
          deps.dataSource,
          auth.organizationId,
          params.id,
          prepared.fields,
          prepared.revision,
          WORKFLOW_LEVEL_KEYS,
          audit,
        );
        if (!outcome) throw conflict('The workflow changed while publishing; retry the request.', 'publish-conflict');
        if (outcome.mode === 'new-revision' && outcome.latestAlias.active) {
          // An active `latest` follows the new revision: its registrations move too (all or nothing).
          try {
            outcome.latestAlias = (await activate(deps, auth, outcome.workflow.id, 'latest', undefined, true)).alias;
          } catch (error) {
            if (!(error instanceof HttpError)) throw error;
            // The revision is published either way; on failure the alias keeps its previous registrations.
          }
        }
        const warnings = await publishWarnings(deps.dataSource, auth.organizationId, outcome.workflow.id, prepared);
        // An active `latest` answers with its live registrations (its webhook URLs, kept across revisions).
        const bindings = outcome.latestAlias.active
          ? await new TriggerBindingRepository(deps.dataSource.manager).ofAliases(outcome.workflow.id, [LATEST])
          : [];
        return {
          status: 200,
          body: publishResult(
            outcome,
            warnings,
            outcome.mode,
            outcome.mode === 'new-revision' ? prepared.revision.definitionJson : undefined,
            bindings,
          ),
          headers: JSON_TYPE,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/validate',
      operationId: 'validateWorkflowDefinition',
      summary: 'Validate a definition without saving it',
      tags,
      access: { permission: 'workflow:read' },
      audit: { none: 'validation only: nothing is written' },
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Validation report (the same errors and warnings as publishing)', schema: ValidationReport } },
      async handler({ body, auth, permission }) {
        await authorizeInOrganization(deps.dataSource, auth, permission);
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
      access: { permission: 'workflow:read' },
      audit: { none: 'validation only: nothing is written' },
      params: WorkflowRef,
      body: DefinitionBody,
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'Validation report', schema: ValidationReport } },
      async handler({ params, body, auth, permission }) {
        const workflow = await authorizedWorkflow(deps.dataSource, auth, params.id, permission);
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
      access: { permission: 'workflow:read' },
      query: Type.Object({
        path: Type.Optional(Type.String({ description: 'folder prefix' })),
        text: Type.Optional(Type.String({ maxLength: 200 })),
        ...Paging,
      }),
      responses: { 200: { description: 'A page of workflows', schema: page(Workflow) } },
      async handler({ query, auth, permission }) {
        // Listing needs the permission on the whole organization (docs/security.md, "Permissions").
        await authorizeInOrganization(deps.dataSource, auth, permission);
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
      access: { permission: 'workflow:read' },
      params: WorkflowRef,
      responses: { 200: { description: 'The workflow', schema: Workflow } },
      async handler({ params, auth, permission }) {
        return { status: 200, body: workflowJson(await authorizedWorkflow(deps.dataSource, auth, params.id, permission)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/workflows/definitions/{id}',
      operationId: 'patchWorkflowDefinition',
      summary: 'Update workflow-level fields (no new revision)',
      tags,
      access: { permission: 'workflow:write' },
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
      async handler({ params, body, auth, permission, audit }) {
        const workflow = await authorizedWorkflow(deps.dataSource, auth, params.id, permission);
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
      access: { permission: 'workflow:write' },
      audit: { action: 'workflow.definition.delete' },
      params: WorkflowRef,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      async handler({ params, auth, permission, audit }) {
        await authorizedWorkflow(deps.dataSource, auth, params.id, permission);
        const outcome = await deleteWorkflow(deps.dataSource, auth.organizationId, params.id, audit);
        if (outcome === 'not-found') throw workflowNotFound(params.id);
        if (outcome === 'active')
          throw conflict('Deactivate every active alias before deleting the workflow.', 'workflow-has-active-alias');
        return { status: 204 };
      },
    }),
  ];
}
