/**
 * Registering an alias's triggers with their registrars (./registrars.ts), all or
 * none, and tearing registrations down: the mechanics under activation.ts, which
 * decides when, under the workflow's row lock.
 */
import { randomBytes } from 'node:crypto';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { BindingWrite } from '../../db/repositories/trigger-binding-repository';
import type { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import type { TriggerDefinition } from '../../workflows/engine';
import type { WorkflowDeps } from './deps';
import { TriggerRegistrationError, type Registration } from './registrars';

export type Failure = { triggerId: string; code: string; message: string };
/** All registered (`carried`: trigger ids whose previous registration was kept), or none, with why. */
type Outcome =
  | { ok: true; bindings: BindingWrite[]; /** Trigger ids whose previous registration was kept. */ carried: string[] }
  | { ok: false; failures: Failure[]; bindings: BindingWrite[] };

export async function triggersOf(
  revisions: WorkflowRevisionRepository,
  workflowId: string,
  revision: number,
): Promise<TriggerDefinition[]> {
  const row = await revisions.findRevision(workflowId, revision);
  const triggers = row?.definition.triggers;
  return Array.isArray(triggers) ? triggers : [];
}

/** Registers every trigger, or none: on the first failure the registered ones are torn down. */
export async function registerAll(
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
export function replaced(previous: TriggerBindingEntity[], carried: string[]): TriggerBindingEntity[] {
  return previous.filter((b) => !carried.includes(b.triggerId));
}

/** Best-effort teardown; returns the messages of the teardowns that failed. */
export async function teardown(deps: WorkflowDeps, bindings: TriggerBindingEntity[]): Promise<string[]> {
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
