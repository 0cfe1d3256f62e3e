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
import type { EntityManager } from 'typeorm';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { WorkflowAliasEntity } from '../../db/entities/workflow-alias';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowAliasRepository } from '../../db/repositories/workflow-alias-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import type { AuditTrail } from '../audit/trail';
import { workflowNrn } from '../access/workflow-reach';
import type { WorkflowDeps } from './deps';
import {
  aliasExists,
  aliasActive,
  aliasNotFound,
  aliasReserved,
  aliasRevisionNotFound,
  triggerActivationFailed,
  workflowNotFound,
} from './errors';
import { registerAll, replaced, teardown, triggersOf, type Failure } from './trigger-registration';

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

export const LATEST = 'latest';

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
  if (failure) throw triggerActivationFailed(failure);
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
  if (name === LATEST) throw aliasReserved('set');
  return locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases, bindings, revisions }) => {
    if (!(await revisions.findRevision(workflowId, body.revision))) {
      throw aliasRevisionNotFound(body.revision);
    }
    const existing = await aliases.findAlias(workflowId, name);
    if (existing && createOnly) throw aliasExists(name);
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
      if (!outcome.ok) throw triggerActivationFailed(outcome.failures);
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
  if (name === LATEST) throw aliasReserved('deleted');
  await locked(deps, auth.organizationId, ref, async ({ workflowId, manager, nrn, aliases }) => {
    const alias = await aliases.findAlias(workflowId, name);
    if (!alias) throw aliasNotFound(name);
    if (alias.active) throw aliasActive(name);
    await aliases.delete({ workflowId, name });
    await audit.record(manager, { nrn, id: workflowId, details: { alias: name, revision: alias.revision } });
  });
}
