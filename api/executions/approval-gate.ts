/**
 * The approval gate of POST /workflows/executions/{id}/signals/{name} (issue 42). When the execution has an
 * open declared-answer wait on the name (its row in `execution_waits`, written when the run started waiting),
 * the caller must be allowed to answer it, and the payload must match its form, before anything is delivered
 * or recorded:
 *
 * - `approvers.users` lists the caller, or the caller holds one of `approvers.roles` on an NRN containing the
 *   target: `approvers.nrn` as the run rendered it (a concrete NRN inside the workflow's), else the workflow's
 *   NRN. Else 403 `not-an-approver`. Without `approvers`, `execution:signal` on the run decides, as for a
 *   plain wait. An approver needs no other grant on the workflow: the wait says who may answer.
 * - `excludeStarter`: the user who started the run gets 403 `starter-may-not-answer`.
 * - a user who answered already gets 409 `already-answered` (one answer per user: it counts once).
 * - a payload that fails `form` gets 422 `answer-invalid` with the failing paths under `/body`.
 *
 * Without a declared-answer wait on the name, the route guards the execution as it always did. The same rule
 * in SQL lists the inbox (db/repositories/answerable-waits.ts).
 */
import type { AuthContext } from '../http/auth';
import type { Permission } from '../http/permissions';
import { accessFromRead, callerKeyOf, type Access } from '../access/access';
import { isConcrete, nrnContains, organizationNrn, parseNrn } from '../access/nrn';
import { workflowNrn } from '../access/workflow-reach';
import { compileUserSchema } from '../admin/user-schema';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { ExecutionWaitRepository, type AnswerWait } from '../../db/repositories/execution-wait-repository';
import type { ExecutionEntity } from '../../db/entities/execution';
import type { ExecutionDeps } from './deps';
import { deliverAnswer } from '../../executions';
import { alreadyAnswered, answerInvalid, asProblem, executionNotFound, notAnApprover, notWaiting, starterMayNotAnswer } from './errors';

/** What the gate let through: the wait answered and who answered it (the delivery carries both). */
export interface GateAnswer {
  waitId: string;
  stepId: string;
  by: string;
  required: number;
}

/**
 * The execution (404 when the caller cannot see it), guarded as above. `gate` is set when the delivery answers a
 * declared-answer wait.
 */
export async function gatedExecution(
  deps: ExecutionDeps,
  auth: AuthContext,
  id: string,
  name: string,
  permission: Permission,
  payload: unknown,
): Promise<{ row: ExecutionEntity; nrn: string; gate?: GateAnswer }> {
  const { grants, found } = await new ExecutionRepository(deps.dataSource.manager).findWithWorkflowNrnAndGrants(callerKeyOf(auth), id);
  const access = await accessFromRead(deps.dataSource, auth, grants);
  if (!found) throw executionNotFound(id);
  const nrn = found.workflow
    ? workflowNrn({ nrn: found.workflow.nrn, organizationId: auth.organizationId })
    : organizationNrn(auth.organizationId);
  const wait = await new ExecutionWaitRepository(deps.dataSource.manager).answerWaitOf(found.row.id, name);
  if (!wait?.answer) {
    access.require(permission, nrn, () => executionNotFound(id));
    return { row: found.row, nrn };
  }
  if (!access.inOrganization(auth.organizationId) && !isListedApprover(wait, auth.userId)) throw executionNotFound(id);
  if (!mayAnswer(access, wait, nrn, auth.userId)) {
    if (wait.answer.approvers) throw notAnApprover(name);
    access.require(permission, nrn, () => executionNotFound(id));
  }
  if (wait.answer.excludeStarter && wait.startedBy === auth.userId) throw starterMayNotAnswer(name);
  if (wait.answers.some((given) => given.by === auth.userId)) throw alreadyAnswered(name);
  if (wait.answer.form) {
    const path = `/steps/${wait.stepId}/config/form`;
    const failures = compileUserSchema(wait.answer.form, 'service', path).validate(payload ?? {});
    if (failures.length > 0)
      throw answerInvalid(
        name,
        failures.map((failure) => ({ path: `/body${failure.path}`, message: failure.message })),
      );
  }
  return { row: found.row, nrn, gate: { waitId: wait.waitId, stepId: wait.stepId, by: auth.userId, required: wait.answer.required } };
}

function isListedApprover(wait: AnswerWait, userId: string): boolean {
  return wait.answer?.approvers?.users.includes(userId) ?? false;
}

/** Whether the caller is one of the wait's approvers (a wait without `approvers`: whoever may signal the run). */
function mayAnswer(access: Access, wait: AnswerWait, workflowNrnText: string, userId: string): boolean {
  const approvers = wait.answer?.approvers;
  if (!approvers) return access.can('execution:signal', workflowNrnText);
  if (approvers.users.includes(userId)) return true;
  const target = approverTarget(approvers.nrn ?? workflowNrnText, workflowNrnText);
  return target !== undefined && access.holdsRole(approvers.roles, target);
}

/** The NRN roles are checked on: a concrete NRN inside the workflow's, else none (a run cannot widen who answers). */
function approverTarget(text: string, workflowNrnText: string): string | undefined {
  const target = parseNrn(text);
  const outer = parseNrn(workflowNrnText);
  if (!target || !outer || !isConcrete(target) || !nrnContains(outer, target)) return undefined;
  return text;
}

/** The audit event of an answer: the signal's, with who answered which wait and how (never the rest of the payload). */
export function answerEvent<E extends { details: Record<string, unknown> }>(event: E, gate: GateAnswer, payload: unknown): E {
  return {
    ...event,
    details: { ...event.details, answer: { waitId: gate.waitId, stepId: gate.stepId, by: gate.by, approved: approvedIn(payload) } },
  };
}

/** Delivers an answer the gate let through; the workflow counts it (released: the run goes on). */
export async function deliverGated(
  deps: ExecutionDeps,
  row: ExecutionEntity,
  name: string,
  payload: unknown,
  signalId: string,
  gate: GateAnswer,
): Promise<{ released: boolean; approvals: number }> {
  const outcome = await deliverAnswer(deps.temporal, row.id, row.temporalRunId, {
    name,
    payload: payload ?? {},
    signalId,
    answer: { waitId: gate.waitId, by: gate.by },
  }).catch(asProblem);
  if (outcome === 'not-waiting') throw notWaiting(name);
  if (outcome === 'already-answered') throw alreadyAnswered(name);
  return outcome;
}

/** As the workflow reads it: only `approved: false` is a rejection. */
function approvedIn(payload: unknown): boolean {
  return !(typeof payload === 'object' && payload !== null && (payload as { approved?: unknown }).approved === false);
}
