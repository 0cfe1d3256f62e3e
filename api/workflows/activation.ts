/**
 * Alias activation, deactivation and repointing. Each runs in one transaction
 * that first locks the workflow row, so concurrent calls on one alias
 * serialize and the final state matches some order of the calls. Triggers
 * register all-or-nothing: when one fails, the ones already registered are
 * torn down before anything is stored.
 *
 * Webhook URLs belong to the alias: while it stays active, moving it to another
 * revision (a publish moving `latest`, a PUT repointing the alias) keeps the
 * token of every webhook step the new revision still has (same step id) and
 * re-points it there; a webhook step the new revision drops or renames has its
 * token retired (404 from then on). An explicit activation (deactivate then
 * activate, or activate again) mints new tokens: that is how a URL is rotated.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { WorkflowAliasEntity } from '../../db/entities/workflow-alias';
import { TriggerBindingRepository, type BindingWrite } from '../../db/repositories/trigger-binding-repository';
import { WorkflowAliasRepository } from '../../db/repositories/workflow-alias-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import type { TriggerDefinition } from '../../workflows/engine';
import type { AuditTrail } from '../audit/trail';
import { HttpError, badRequest, conflict, notFound } from '../http/errors';
import { workflowNrn } from './authorize';
import type { WorkflowDeps } from './deps';
import { workflowNotFound } from './errors';
import { TriggerRegistrationError, type Registration } from './registrars';

export interface AliasState {
  alias: WorkflowAliasEntity;
  bindings: TriggerBindingEntity[];
}

/** The repositories of one locked transaction (bound to its manager). */
interface Locked {
  workflowId: string;
  /** The transaction's manager (the audit event is written with it). */
  manager: EntityManager;
  nrn: string;
  aliases: WorkflowAliasRepository;
  bindings: TriggerBindingRepository;
  revisions: WorkflowRevisionRepository;
}

type Failure = { triggerId: string; code: string; message: string };
type Outcome =
  | { ok: true; bindings: BindingWrite[]; /** Trigger ids whose previous registration was kept. */ carried: string[] }
  | { ok: false; failures: Failure[]; bindings: BindingWrite[] };

export const LATEST = 'latest';
const aliasNotFound = (name: string) => notFound(`No alias "${name}" exists on this workflow.`, 'alias-not-found');

async function locked<T>(deps: WorkflowDeps, organizationId: string, ref: string, work: (locked: Locked) => Promise<T>): Promise<T> {
  return deps.dataSource.transaction(async (m) => {
    const workflow = await new WorkflowRepository(m).lockByRef(organizationId, ref);
    if (!workflow) throw workflowNotFound(ref);
    return work({
      workflowId: workflow.id,
      manager: m,
      nrn: workflowNrn(workflow),
      aliases: new WorkflowAliasRepository(m),
      bindings: new TriggerBindingRepository(m),
      revisions: new WorkflowRevisionRepository(m),
    });
  });
}

async function triggersOf(revisions: WorkflowRevisionRepository, workflowId: string, revision: number): Promise<TriggerDefinition[]> {
  const row = await revisions.findRevision(workflowId, revision);
  const triggers = row?.definition.triggers;
  return Array.isArray(triggers) ? triggers : [];
}

/** Registers every trigger, or none: on the first failure the registered ones are torn down. */
async function registerAll(
  deps: WorkflowDeps,
  organizationId: string,
  workflowId: string,
  aliasName: string,
  revision: number,
  triggers: TriggerDefinition[],
  /** The live bindings of an active alias moving to another revision: registrars may carry them over. */
  previous: TriggerBindingEntity[] = [],
): Promise<Outcome> {
  const activationId = randomBytes(4).toString('hex');
  const done: Array<{ trigger: TriggerDefinition; registration: Registration }> = [];
  for (const trigger of triggers) {
    const registrar = deps.registrars[trigger.pluginType];
    const before = previous.find((b) => b.triggerId === trigger.id && b.pluginType === trigger.pluginType);
    try {
      if (!registrar)
        throw new TriggerRegistrationError('TRIGGER_KIND_UNSUPPORTED', `No registrar handles ${trigger.pluginType} triggers.`);
      done.push({
        trigger,
        registration: await registrar.register({
          organizationId,
          workflowId,
          aliasName,
          revision,
          trigger,
          activationId,
          ...(before ? { previous: registrationOf(before) } : {}),
        }),
      });
    } catch (error) {
      // A carried registration is the alias's running one: it stays.
      await Promise.allSettled(
        done
          .filter(({ registration }) => registration.carried !== true)
          .map(({ trigger: t, registration }) =>
            deps.registrars[t.pluginType].unregister(registration, { organizationId, workflowId, aliasName, revision, triggerId: t.id }),
          ),
      );
      const code = error instanceof TriggerRegistrationError ? error.code : 'TRIGGER_REGISTRATION_FAILED';
      const message = error instanceof Error ? error.message : 'registration failed';
      const failures: Failure[] = triggers.map((t) =>
        t.id === trigger.id
          ? { triggerId: t.id, code, message }
          : { triggerId: t.id, code: 'ACTIVATION_ROLLED_BACK', message: `Not activated: trigger "${trigger.id}" failed to register.` },
      );
      const bindings = failures.map((f) => {
        const t = triggers.find((x) => x.id === f.triggerId) as TriggerDefinition;
        return binding(organizationId, workflowId, aliasName, revision, t, 'failed', {}, { code: f.code, message: f.message });
      });
      return { ok: false, failures, bindings };
    }
  }
  return {
    ok: true,
    carried: done.filter(({ registration }) => registration.carried === true).map(({ trigger }) => trigger.id),
    bindings: done.map(({ trigger, registration }) =>
      binding(organizationId, workflowId, aliasName, revision, trigger, 'live', registration, null),
    ),
  };
}

function binding(
  organizationId: string,
  workflowId: string,
  aliasName: string,
  revision: number,
  trigger: TriggerDefinition,
  status: 'live' | 'failed',
  registration: Registration,
  lastError: { code: string; message: string } | null,
): BindingWrite {
  return {
    workflowId,
    aliasName,
    organizationId,
    revision,
    status,
    lastError,
    activated: status === 'live',
    triggerId: trigger.id,
    pluginType: trigger.pluginType,
    webhookToken: registration.webhookToken ?? null,
    scheduleId: registration.scheduleId ?? null,
    runtimeMetadata: registration.runtimeMetadata ?? null,
  };
}

function registrationOf(b: TriggerBindingEntity): Registration {
  return {
    scheduleId: b.scheduleId ?? undefined,
    webhookToken: b.webhookToken ?? undefined,
    runtimeMetadata: b.runtimeMetadata ?? undefined,
  };
}

/** The live bindings a new set of registrations replaces (the carried ones stay registered). */
function replaced(previous: TriggerBindingEntity[], carried: string[]): TriggerBindingEntity[] {
  return previous.filter((b) => !carried.includes(b.triggerId));
}

/** Best-effort teardown; returns the messages of the teardowns that failed. */
async function teardown(deps: WorkflowDeps, bindings: TriggerBindingEntity[]): Promise<string[]> {
  const results = await Promise.allSettled(
    bindings.map(
      (b) =>
        deps.registrars[b.pluginType]?.unregister(registrationOf(b), {
          organizationId: b.organizationId,
          workflowId: b.workflowId,
          aliasName: b.aliasName,
          revision: b.revision,
          triggerId: b.triggerId,
        }) ?? Promise.resolve(),
    ),
  );
  return results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${bindings[i].triggerId}: ${(r.reason as Error)?.message ?? 'teardown failed'}`] : [],
  );
}

function activationFailed(failures: Failure[]): HttpError {
  const failed = failures.filter((f) => f.code !== 'ACTIVATION_ROLLED_BACK');
  return new HttpError(
    502,
    'trigger-activation-failed',
    `Activation was rolled back: ${failed.map((f) => `trigger "${f.triggerId}" (${f.code}): ${f.message}`).join('; ')}`,
    {
      errors: failed.map((f) => ({ path: `/triggerStates/${f.triggerId}`, message: `${f.code}: ${f.message}` })),
    },
  );
}

export async function activate(
  deps: WorkflowDeps,
  auth: { organizationId: string; userId: string },
  ref: string,
  name: string,
  /** The request's trail, when the activation is the request's own write (not a publish moving `latest`). */
  audit?: AuditTrail,
  /** A publish moving an active `latest`: its registrations follow (webhook tokens kept), as a PUT repointing an alias. */
  follow = false,
): Promise<AliasState> {
  let failure: Failure[] | undefined;
  const state = await locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases, bindings, revisions }) => {
    const alias = await aliases.findAlias(workflowId, name);
    if (!alias) throw aliasNotFound(name);
    const previous = (await bindings.ofAliases(workflowId, [name])).filter((b) => b.status === 'live');
    const outcome = await registerAll(
      deps,
      auth.organizationId,
      workflowId,
      name,
      alias.revision,
      await triggersOf(revisions, workflowId, alias.revision),
      // An explicit activation mints new tokens (rotation); an active alias following a publish keeps them.
      follow && alias.active ? previous : [],
    );
    if (!outcome.ok) {
      failure = outcome.failures;
      // An active alias keeps its running registrations; an inactive one records why it could not start.
      if (!alias.active) await bindings.replaceAll(workflowId, name, outcome.bindings);
      return { alias, bindings: await bindings.ofAliases(workflowId, [name]) };
    }
    await teardown(deps, replaced(previous, outcome.carried));
    await bindings.replaceAll(workflowId, name, outcome.bindings);
    await audit?.record(manager, {
      nrn,
      id: workflowId,
      details: { alias: name, revision: alias.revision, triggers: outcome.bindings.map((b) => b.triggerId) },
    });
    return { alias: await aliases.setActive(workflowId, name, true, auth.userId), bindings: await bindings.ofAliases(workflowId, [name]) };
  });
  if (failure) throw activationFailed(failure);
  return state;
}

export async function deactivate(
  deps: WorkflowDeps,
  auth: { organizationId: string; userId: string },
  ref: string,
  name: string,
  audit: AuditTrail,
): Promise<AliasState & { deactivatedTriggers: string[]; deactivateError?: string }> {
  return locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases, bindings }) => {
    const alias = await aliases.findAlias(workflowId, name);
    if (!alias) throw aliasNotFound(name);
    if (!alias.active) return { alias, bindings: await bindings.ofAliases(workflowId, [name]), deactivatedTriggers: [] };
    const live = (await bindings.ofAliases(workflowId, [name])).filter((b) => b.status === 'live');
    const errors = await teardown(deps, live);
    await bindings.deactivateAll(workflowId, name);
    const updated = await aliases.setActive(workflowId, name, false, auth.userId);
    await audit.record(manager, {
      nrn,
      id: workflowId,
      details: { alias: name, revision: alias.revision, triggers: live.map((b) => b.triggerId), teardownFailed: errors.length > 0 },
    });
    return {
      alias: updated,
      bindings: await bindings.ofAliases(workflowId, [name]),
      deactivatedTriggers: live.map((b) => b.triggerId),
      ...(errors.length > 0 ? { deactivateError: `Teardown failed for ${errors.join('; ')}` } : {}),
    };
  });
}

/** Creates or repoints an alias; an active alias moves its registrations to the new revision atomically. */
export async function putAlias(
  deps: WorkflowDeps,
  auth: { organizationId: string; userId: string },
  ref: string,
  name: string,
  body: { revision: number; metadata?: Record<string, unknown> | null; flowControl?: Record<string, unknown> | null },
  audit: AuditTrail,
  createOnly = false,
): Promise<AliasState & { created: boolean }> {
  if (name === LATEST) throw badRequest('The alias "latest" is maintained automatically and cannot be set.', 'alias-reserved');
  return locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases, bindings, revisions }) => {
    if (!(await revisions.findRevision(workflowId, body.revision))) {
      throw new HttpError(400, 'revision-not-found', `Revision ${body.revision} does not exist.`, {
        errors: [{ path: '/revision', message: 'no such revision' }],
      });
    }
    const existing = await aliases.findAlias(workflowId, name);
    if (existing && createOnly) throw conflict(`Alias "${name}" already exists; use PUT to repoint it.`, 'alias-exists');
    if (existing?.active && existing.revision !== body.revision) {
      const previous = (await bindings.ofAliases(workflowId, [name])).filter((b) => b.status === 'live');
      const outcome = await registerAll(
        deps,
        auth.organizationId,
        workflowId,
        name,
        body.revision,
        await triggersOf(revisions, workflowId, body.revision),
        previous,
      );
      if (!outcome.ok) throw activationFailed(outcome.failures);
      await teardown(deps, replaced(previous, outcome.carried));
      await bindings.replaceAll(workflowId, name, outcome.bindings);
    } else if (existing && !existing.active && existing.revision !== body.revision) {
      // States of an earlier failed or finished activation describe the old revision's triggers.
      await bindings.replaceAll(workflowId, name, []);
    }
    let alias = await aliases.upsertAlias({ workflowId, name, revision: body.revision, metadata: body.metadata, updatedBy: auth.userId });
    // Its own flow control (executions/flow/), written only when the request names it.
    if (body.flowControl !== undefined) alias = await aliases.setFlowControl(workflowId, name, body.flowControl);
    await audit.record(manager, {
      nrn,
      id: workflowId,
      details: { alias: name, revision: body.revision, previousRevision: existing?.revision ?? null, active: alias.active },
    });
    return { alias, bindings: await bindings.ofAliases(workflowId, [name]), created: !existing };
  });
}

export async function removeAlias(
  deps: WorkflowDeps,
  auth: { organizationId: string },
  ref: string,
  name: string,
  audit: AuditTrail,
): Promise<void> {
  if (name === LATEST) throw badRequest('The alias "latest" is maintained automatically and cannot be deleted.', 'alias-reserved');
  await locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases }) => {
    const alias = await aliases.findAlias(workflowId, name);
    if (!alias) throw aliasNotFound(name);
    if (alias.active) throw conflict(`Deactivate alias "${name}" before deleting it.`, 'alias-active');
    await aliases.delete({ workflowId, name });
    await audit.record(manager, { nrn, id: workflowId, details: { alias: name, revision: alias.revision } });
  });
}
