/** GET /workflows/executions[/{id}[/state|/steps|/pending-signals]] and POST …/cancel, …/terminate. */
import { Type } from '@sinclair/typebox';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ExecutionEntity } from '../../db/entities/execution';
import { checkOpenRun, endRun } from '../../executions';
import { ExecutionListRepository } from '../../db/repositories/execution-list-repository';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { HttpError } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { authorizeInOrganization } from '../workflows/authorize';
import type { ExecutionDeps } from './deps';
import { executionFinished, executorUnavailable } from './errors';
import { executionHandle, isFinished, authorizedExecution, guardedExecution } from './live';
import { openWaits, recordedState } from './recorded-state';
import { cancelReasonSignal } from '../../workflows/messages';
import {
  Execution,
  EXECUTION_COUNT_CAP,
  ExecutionPage,
  ExecutionQuery,
  ExecutionReadQuery,
  ExecutionRef,
  ExecutionState,
  PendingWait,
  ReasonBody,
  StepParams,
} from './schemas';
import { cancelQueued, queuePosition } from './queued';
import { cappedRecord, executionJson } from './serialize';
import { decodeCursor, encodeCursor, filterDigest } from './list-cursor';
import { PageFields, Paging } from '../workflows/schemas';
import { waitWhileRunning } from './wait-while-running';
import { waitMilliseconds } from './wait-parameter';

const tags = ['Workflow executions'];
const Json = Type.Record(Type.String(), Type.Unknown());

export function executionReadRoutes(deps: ExecutionDeps): RouteDefinition[] {
  const executions = new ExecutionRepository(deps.dataSource.manager);
  const executionList = new ExecutionListRepository(deps.dataSource.manager);
  const stepRecords = new ExecutionStepRepository(deps.dataSource.manager);
  /**
   * Temporal refused or is unreachable (503). A run Temporal says is over while its row is open (it was cancelled or
   * terminated behind the API's back, or its history is gone) is brought in line first, as the open-runs sweep
   * would, and the answer is 409 with the status it now has.
   */
  const temporalCall = async (row: ExecutionEntity, call: () => Promise<unknown>): Promise<void> => {
    try {
      await call();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw executorUnavailable();
      await checkOpenRun(deps, row).catch(() => undefined);
      const status = (await executions.statusInOrganization(row.organizationId, row.id)) ?? row.status;
      throw executionFinished(row.id, status);
    }
  };

  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions',
      operationId: 'listExecutions',
      summary: 'List executions, newest first',
      description:
        "Paged by `page` or, at any depth, by `cursor` (the previous page's `nextCursor`, with the same filters). `total` counts matching executions up to 1,000 (or to the requested page's end); `totalCapped` is true when more match.",
      tags,
      access: { permission: 'workflow:read' },
      query: ExecutionQuery,
      responses: { 200: { description: 'A page of executions', schema: ExecutionPage } },
      async handler({ query, auth, permission }) {
        // Listing needs the permission on the whole organization (docs/security.md, "Permissions").
        await authorizeInOrganization(deps.dataSource, auth, permission);
        const limit = query.limit ?? 50;
        // A cursor continues the list with the filters it was made for; `page` is then ignored.
        const digest = filterDigest({
          workflowId: query.workflowId,
          alias: query.alias,
          status: query.status,
          correlationKey: query.correlationKey,
          // Only when given: the cursors of lists without it stay what they were.
          ...(query.rerunOf !== undefined ? { rerunOf: query.rerunOf } : {}),
          from: query.from,
          to: query.to,
        });
        const after = query.cursor !== undefined ? decodeCursor(query.cursor, digest) : undefined;
        const offset = after ? 0 : ((query.page ?? 1) - 1) * limit;
        const before = after ? after.before : offset;
        let workflowId = query.workflowId;
        if (workflowId !== undefined) {
          // A key is translated to the id; an unknown reference simply matches nothing.
          workflowId = (await new WorkflowRepository(deps.dataSource.manager).findByRef(auth.organizationId, workflowId))?.id ?? workflowId;
        }
        const filter = {
          workflowId,
          alias: query.alias,
          status: query.status,
          correlationKey: query.correlationKey,
          rerunOf: query.rerunOf,
          from: query.from !== undefined ? new Date(query.from) : undefined,
          to: query.to !== undefined ? new Date(query.to) : undefined,
        };
        const { rows, next, total, totalCapped } = await executionList.listPage(auth.organizationId, filter, {
          limit,
          offset,
          after,
          // Deeper offset pages count as far as they read anyway, so their page numbers stay exact.
          countCap: Math.max(EXECUTION_COUNT_CAP, offset + limit),
        });
        const nextCursor = next ? encodeCursor({ ...next, before: before + rows.length }, digest) : null;
        return {
          status: 200,
          body: {
            data: rows.map((row) => executionJson(row, deps)),
            page: Math.floor(before / limit) + 1,
            limit,
            total,
            totalCapped,
            nextCursor,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}',
      operationId: 'getExecution',
      summary: 'Get an execution',
      tags,
      access: { permission: 'workflow:read' },
      description:
        'status is waiting while every running step is parked on a signal. Read from PostgreSQL as the workflow last recorded it (never a query to Temporal). With `wait` (`?wait=30s`), the request is held while the execution runs: until it has ended or waits on a signal, or that time has passed; then it is answered as it would be without it: one request instead of polling for the result.',
      params: ExecutionRef,
      query: ExecutionReadQuery,
      errors: [429],
      responses: { 200: { description: 'The execution', schema: Execution } },
      async handler({ params, query, auth, permission, ctx }) {
        const waitMs = waitMilliseconds(query.wait, deps.limits.executionWaitMaxSeconds);
        let row = await authorizedExecution(deps, auth, params.id, permission);
        if (waitMs > 0 && row.status === 'running') {
          await waitWhileRunning(deps, row, {
            owner: { organizationId: auth.organizationId, userId: auth.userId },
            ms: waitMs,
            response: ctx.res,
          });
          // Answered as a read without `wait` would be now: authorized again, as the caller's grants may have changed meanwhile.
          row = await authorizedExecution(deps, auth, params.id, permission);
        }
        return { status: 200, body: executionJson(row, deps, row.status, new Date(), await queuePosition(deps, row)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/state',
      operationId: 'getExecutionState',
      summary: 'Recorded state: steps, variables, running steps and open waits',
      tags,
      access: { permission: 'workflow:read' },
      params: ExecutionRef,
      responses: { 200: { description: 'The state', schema: ExecutionState } },
      async handler({ params, auth, permission }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        return { status: 200, body: await recordedState(deps, row) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/steps',
      operationId: 'listExecutionSteps',
      summary: 'Recorded step runs, by start time',
      tags,
      access: { permission: 'workflow:read' },
      params: ExecutionRef,
      query: Type.Object(Paging),
      responses: { 200: { description: 'A page of step records', schema: Type.Object({ data: Type.Array(Json), ...PageFields }) } },
      async handler({ params, query, auth, permission }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        const page = query.page ?? 1;
        const limit = query.limit ?? 50;
        const { rows, total } = await stepRecords.pageOf(row.id, undefined, page, limit);
        return { status: 200, body: { data: rows.map((step) => cappedRecord(step.record)), page, limit, total } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/steps/{stepId}',
      operationId: 'getExecutionStep',
      summary: 'One step: its latest record in full, and every run',
      tags,
      access: { permission: 'workflow:read' },
      params: StepParams,
      query: Type.Object(Paging),
      responses: {
        200: {
          description: 'The step, and a page of its runs (page, limit and total count runs)',
          schema: Type.Object({ stepId: Type.String(), record: Json, runs: Type.Array(Json), ...PageFields }),
        },
      },
      async handler({ params, query, auth, permission }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        const latest = await stepRecords.latestOf(row.id, params.stepId);
        if (!latest) throw new HttpError(404, 'step-not-found', `Execution "${params.id}" has no recorded step "${params.stepId}".`);
        const page = query.page ?? 1;
        const limit = query.limit ?? 50;
        const { rows, total } = await stepRecords.pageOf(row.id, params.stepId, page, limit);
        return {
          status: 200,
          body: { stepId: params.stepId, record: latest.record, runs: rows.map((step) => step.record), page, limit, total },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/pending-signals',
      operationId: 'listPendingSignals',
      summary: 'Open waits of a running execution',
      tags,
      access: { permission: 'workflow:read' },
      params: ExecutionRef,
      responses: { 200: { description: 'Open waits', schema: Type.Object({ data: Type.Array(PendingWait) }) } },
      async handler({ params, auth, permission }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        return { status: 200, body: { data: await openWaits(deps, row) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/executions/{id}/cancel',
      operationId: 'cancelExecution',
      summary: 'Request cancellation (the workflow records it)',
      tags,
      access: { permission: 'execution:cancel' },
      audit: { action: 'execution.cancel' },
      params: ExecutionRef,
      body: ReasonBody,
      bodyOptional: true,
      errors: [409, 503],
      responses: {
        202: {
          description: 'Cancellation requested',
          schema: Type.Object({ executionId: Type.String(), cancelRequested: Type.Literal(true) }),
        },
      },
      async handler({ params, body, auth, permission, audit }) {
        let { row, nrn } = await guardedExecution(deps, auth, params.id, permission);
        // A queued run has no workflow yet and holds no slot: it simply ends; one promoted meanwhile is cancelled as below.
        if (row.status === 'queued') {
          if (await cancelQueued(deps, audit, { row, nrn }, body?.reason))
            return { status: 202, body: { executionId: row.id, cancelRequested: true } };
          ({ row, nrn } = await guardedExecution(deps, auth, params.id, permission));
        }
        if (isFinished(row)) throw executionFinished(row.id, row.status);
        // The workflow itself writes `cancelled` (and flushes its logs) when the request reaches it;
        // the reason goes first, as a signal, because a Temporal cancel request carries none the workflow can read.
        const handle = executionHandle(deps, row);
        // Temporal holds the change: recorded before the calls, with their outcome (docs/security.md, "Audit trail").
        await audit.around(
          deps.dataSource.manager,
          { nrn, id: row.id, details: { workflowId: row.workflowId, reason: body?.reason } },
          async () => {
            if (body?.reason) await temporalCall(row, () => handle.signal(cancelReasonSignal, body.reason as string));
            await temporalCall(row, () => handle.cancel());
          },
        );
        return { status: 202, body: { executionId: row.id, cancelRequested: true } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/executions/{id}/terminate',
      operationId: 'terminateExecution',
      summary: 'Terminate at once (no workflow code runs)',
      tags,
      access: { permission: 'execution:cancel' },
      audit: { action: 'execution.terminate' },
      params: ExecutionRef,
      body: ReasonBody,
      bodyOptional: true,
      errors: [409, 503],
      responses: { 200: { description: 'Terminated', schema: Execution } },
      async handler({ params, body, auth, permission, audit }) {
        let { row, nrn } = await guardedExecution(deps, auth, params.id, permission);
        const reason = body?.reason ?? 'terminated through the API';
        if (row.status === 'queued' && (await cancelQueued(deps, audit, { row, nrn }, reason, 'terminated')))
          return { status: 200, body: executionJson((await executions.findInOrganization(auth.organizationId, row.id)) ?? row, deps) };
        if (row.status === 'queued') ({ row, nrn } = await guardedExecution(deps, auth, params.id, permission));
        if (isFinished(row)) throw executionFinished(row.id, row.status);
        await audit.around(deps.dataSource.manager, { nrn, id: row.id, details: { workflowId: row.workflowId, reason } }, () =>
          temporalCall(row, () => executionHandle(deps, row).terminate(reason)),
        );
        // Termination runs no workflow code, so the record is finished here, after Temporal accepted it.
        // A concurrency slot it held goes to the next queued run of its key now (executions/flow/).
        await endRun({ dataSource: deps.dataSource, starts: deps }, row.id, 'terminated', null, { type: 'TERMINATED', message: reason });
        const finished = await executions.findInOrganization(auth.organizationId, row.id);
        return { status: 200, body: executionJson(finished ?? row, deps) };
      },
    }),
  ];
}
