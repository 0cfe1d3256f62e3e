/**
 * Publishing a definition, top-down: {@link Publisher.createWorkflow} (POST) and
 * {@link Publisher.upsertWorkflow} (PUT by key or id). Each prepares the body
 * (publish.ts), decides on the caller's grants, writes, and answers with the
 * publish's warnings.
 *
 * A new workflow's insert is one statement that also checks the caller's grants
 * are the ones the decision was made on (WorkflowRepository.publishNew), so the
 * decision may use the caller's access remembered from its last publish
 * (api/access/recent-access.ts) and skip reading grants; when the statement finds
 * them changed, the decision is made again on the grants it answers.
 */
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowRepository, type PublishNewOutcome, type Published } from '../../db/repositories/workflow-repository';
import { isUniqueViolation } from '../../db/sql';
import { accessOf, loadAccess, type Access } from '../access/access';
import { RecentAccess } from '../access/recent-access';
import { workflowNrn } from '../access/workflow-reach';
import { definitionSummary } from '../audit/definition-diff';
import type { AuditTrail } from '../audit/trail';
import type { AuthContext } from '../http/auth';
import { HttpError } from '../http/errors';
import type { Permission } from '../http/permissions';
import type { HandlerResult } from '../http/route';
import { LATEST, activate } from './activation';
import { refuseEnvelope } from './definition-envelope';
import type { WorkflowDeps } from './deps';
import {
  bodyKeyDiffers,
  organizationNotFound,
  publishConflict,
  workflowKeyConflict,
  workflowKeyForbidden,
  workflowNotFound,
} from './errors';
import { newWorkflowId } from './ids';
import { WORKFLOW_LEVEL_KEYS, prepare, publishWarnings, type Prepared } from './publish';
import { publishAnswer } from './publish-answer';
import type { RevisionSource } from './revision-source';
import { publishOnExisting } from './workflow-writes';

/** How often a publish decides again on grants that changed under it before answering 409. */
const PUBLISH_GRANT_ROUNDS = 3;

export interface PublishRequest {
  auth: AuthContext;
  /** The route's permission (`workflow:write`). */
  permission: Permission;
  audit: AuditTrail;
  body: unknown;
  /** From the query: takes the place of a `releaseNotes` key in the body (which stays as sent). */
  releaseNotes?: string;
  /** The text the body was sent as, kept on the revision. */
  source: RevisionSource;
}

/** A publish's decision on an access: throws its 404 or 403, else lets it through. */
type Rule = (access: Access) => void;

export class Publisher {
  private readonly workflows: WorkflowRepository;
  private readonly recentAccess = new RecentAccess();

  constructor(private readonly deps: WorkflowDeps) {
    this.workflows = new WorkflowRepository(deps.dataSource.manager);
  }

  /** POST: a new workflow (revision 1, alias latest). A key another workflow holds answers 409, or 403 (keyTaken). */
  async createWorkflow(request: PublishRequest): Promise<HandlerResult> {
    refuseEnvelope(request.body);
    const prepared = this.prepare(request, request.body);
    const rule = writeRule(request.permission, prepared.fields.nrn);
    const id = newWorkflowId();
    const published = await this.insertNew(request, rule, { id, key: prepared.key }, prepared, false).catch(async (error: unknown) => {
      throw isUniqueViolation(error) ? await this.keyTaken(request.auth, prepared.key) : error;
    });
    if (!published) throw new Error('workflow insert returned no row');
    const warnings = await publishWarnings(this.deps.dataSource, request.auth.organizationId, id, prepared);
    return publishAnswer(201, { published, warnings, definitionJson: prepared.revision.definitionJson }, this.deps.publicBaseUrl);
  }

  /**
   * PUT: by key, creates the workflow (mode created) or publishes onto it; by id (`wf_…`), publishes onto
   * that workflow, which keeps its key. Onto an existing one: a new revision when the content changed, else
   * only workflow-level fields (mode overwritten); an active `latest` follows a new revision.
   */
  async upsertWorkflow(request: PublishRequest, ref: string): Promise<HandlerResult> {
    const { auth } = request;
    refuseEnvelope(request.body);
    // By id: a new revision of that workflow, under the key it has (a `wf_…` id never matches the key pattern).
    const byId = ref.startsWith('wf_') ? await this.workflows.findByRef(auth.organizationId, ref) : undefined;
    if (ref.startsWith('wf_') && byId?.id !== ref) throw workflowNotFound(ref);
    const key = byId ? byId.key : ref;
    const body = request.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'key' in body && body.key !== key) throw bodyKeyDiffers(key);
    const prepared = this.prepare(request, withKey(body, key));
    const existing = byId ?? (await this.workflows.findByRef(auth.organizationId, ref));
    const rule = writeRule(request.permission, prepared.fields.nrn, existing);

    if (byId) {
      this.recentAccess.remember(await this.decided(auth, rule));
    } else {
      // Try to create first (one statement); an existing key falls through to the locked update below.
      const id = newWorkflowId();
      const published = await this.insertNew(request, rule, { id, key: ref }, prepared, true);
      if (published) {
        const warnings = await publishWarnings(this.deps.dataSource, auth.organizationId, id, prepared);
        const answer = { published, warnings, mode: 'created', definitionJson: prepared.revision.definitionJson };
        return publishAnswer(201, answer, this.deps.publicBaseUrl);
      }
    }

    const outcome = await publishOnExisting(
      this.deps.dataSource,
      auth.organizationId,
      ref,
      prepared.fields,
      prepared.revision,
      WORKFLOW_LEVEL_KEYS,
      request.audit,
    );
    if (!outcome) throw publishConflict('workflow');
    if (outcome.mode === 'new-revision' && outcome.latestAlias.active) outcome.latestAlias = await this.followLatest(auth, outcome);
    const warnings = await publishWarnings(this.deps.dataSource, auth.organizationId, outcome.workflow.id, prepared);
    // An active `latest` answers with its live registrations (its webhook URLs, kept across revisions).
    const bindings = outcome.latestAlias.active
      ? await new TriggerBindingRepository(this.deps.dataSource.manager).ofAliases(outcome.workflow.id, [LATEST])
      : [];
    const definitionJson = outcome.mode === 'new-revision' ? prepared.revision.definitionJson : undefined;
    return publishAnswer(200, { published: outcome, warnings, mode: outcome.mode, definitionJson, bindings }, this.deps.publicBaseUrl);
  }

  private prepare(request: PublishRequest, body: unknown): Prepared {
    return prepare(withReleaseNotes(body, request.releaseNotes), request.auth, this.deps.limits, this.deps.plugins, request.source);
  }

  /**
   * Inserts a new workflow and its audit event, decided by `rule` on the caller's access, again on the
   * grants the statement answers when they changed under it. Undefined when an upsert finds the key taken.
   */
  private async insertNew(
    request: PublishRequest,
    rule: Rule,
    ids: { id: string; key: string | null },
    prepared: Prepared,
    upsert: boolean,
  ): Promise<Published | undefined> {
    let access = await this.accessFor(request.auth, rule);
    for (let round = 1; ; round += 1) {
      rule(access);
      const result = await this.insertRecorded(request, ids, prepared, access, upsert);
      if (result.outcome !== 'grants-changed') {
        this.recentAccess.remember(access);
        return result.outcome === 'published' ? result : undefined;
      }
      if (round === PUBLISH_GRANT_ROUNDS) throw publishConflict('grants');
      access = accessOf(access.caller, result.grantsNow);
    }
  }

  /**
   * The insert (one statement) and its audit event, in one transaction. The event holds what revision 1
   * is (its steps and connections), never values; a publish that wrote nothing records nothing.
   */
  private insertRecorded(
    request: PublishRequest,
    ids: { id: string; key: string | null },
    prepared: Prepared,
    access: Access,
    upsert: boolean,
  ): Promise<PublishNewOutcome> {
    const under = { userId: access.caller.userId, userType: access.caller.userType, grantsAsOf: access.grantsAsOf };
    return this.deps.dataSource.transaction(async (m) => {
      const row = { ...ids, organizationId: request.auth.organizationId };
      const result = await new WorkflowRepository(m).publishNew(row, prepared.fields, prepared.revision, under, upsert);
      if (result.outcome === 'published') {
        const { workflow, revision } = result;
        const details = { key: workflow.key, mode: 'created', revision: revision.revision, ...definitionSummary(revision.definition) };
        await request.audit.record(m, { nrn: workflowNrn(workflow), id: workflow.id, details });
      }
      return result;
    });
  }

  /**
   * The access a publish decides on: the caller's access at its last publish when that permits this
   * one (the insert checks it is still current), else grants read afresh; a refusal is always decided
   * on grants read afresh.
   */
  private async accessFor(auth: AuthContext, rule: Rule): Promise<Access> {
    const remembered = this.recentAccess.of(auth);
    return remembered && permits(remembered, rule) ? remembered : loadAccess(this.deps.dataSource, auth);
  }

  /** The access `rule` lets through (a publish onto an existing workflow, whose write checks no grants). */
  private async decided(auth: AuthContext, rule: Rule): Promise<Access> {
    const access = await this.accessFor(auth, rule);
    rule(access);
    return access;
  }

  /**
   * A POST whose key another workflow holds: 409 to a caller who may read that workflow; 403 to one
   * who may not, as a PUT of the key refuses them, without the workflow's details (its NRN). Decided
   * on grants read afresh, on this rare path only.
   */
  private async keyTaken(auth: AuthContext, key: string | null): Promise<HttpError> {
    const existing = key === null ? undefined : await this.workflows.findByRef(auth.organizationId, key);
    if (existing && !(await loadAccess(this.deps.dataSource, auth)).can('workflow:read', workflowNrn(existing)))
      return workflowKeyForbidden(key);
    return workflowKeyConflict(key);
  }

  /** An active `latest` follows a new revision: its registrations move too (all or nothing). */
  private async followLatest(auth: AuthContext, outcome: Published): Promise<Published['latestAlias']> {
    try {
      return (await activate(this.deps, auth, outcome.workflow.id, LATEST, undefined, true)).alias;
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      // The revision is published either way; on failure the alias keeps its previous registrations.
      return outcome.latestAlias;
    }
  }
}

/**
 * Publishing writes at the definition's NRN and, onto an existing workflow, at the
 * NRN it had: the permission is needed on both (moving a workflow is writing in both places).
 */
function writeRule(
  permission: Permission,
  nrn: string,
  existing?: { id: string; key: string | null; nrn: string | null; organizationId: string },
): Rule {
  return (access) => {
    if (existing) access.require(permission, workflowNrn(existing), () => workflowNotFound(existing.key ?? existing.id));
    access.require(permission, nrn, () => organizationNotFound(access.caller.organizationId));
  };
}

/** Whether `rule` lets the access through. */
function permits(access: Access, rule: Rule): boolean {
  try {
    rule(access);
    return true;
  } catch (error) {
    if (error instanceof HttpError) return false;
    throw error;
  }
}

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
