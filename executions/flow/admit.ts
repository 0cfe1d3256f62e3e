/**
 * Flow control (issue 44): `concurrency`, `throttle` and `debounce` of a workflow (or of the alias it runs
 * under), held across API replicas, workers and restarts. The design, in one place:
 *
 * - Data. A flow-controlled run is a row of `executions` with its rendered key (`flow_key`, scoped by
 *   organization and workflow), its kind, its concurrency limit, when it is due (`not_before`, throttle
 *   and debounce) and when it got its slot (`admitted_at`). A run waiting for its slot or its time has
 *   status `queued` and no Temporal workflow yet. Nothing lives in process memory.
 * - Admission (this file, from executions/record-run.ts: every trigger kind records through it). A run
 *   without flow control is recorded as before, with no extra statement. With it: one transaction that
 *   takes the key's advisory lock (ExecutionAdmissionRepository.lockKey) and then one statement that counts the
 *   key's runs and inserts the row `running` or `queued` (or nothing: refused), so two replicas admitting
 *   the same key are serialised and never both take the last slot.
 * - Promotion (./promote.ts, from ./end-run.ts). When a run holding a concurrency slot ends (the
 *   workflow's finish, terminate, the sweeps), the statement that ends it answers its key, and the next
 *   queued runs are moved to `running` under the key's lock and started in Temporal at once (workflow id =
 *   execution id, REJECT_DUPLICATE: a double promotion cannot run one twice).
 * - Safety net (./sweep.ts, on a short timer in every API process: startup/flow-sweeper.ts). Throttled and
 *   debounced runs whose time came, and concurrency keys with queued runs and free slots (a promoter that
 *   died), are promoted and started; a run promoted but never started is started by the start reconciler
 *   (executions/reconcile-starts.ts), as any lost start.
 *
 * What each caller does at a full key is in docs/definitions.md ("Flow control").
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { ExecutionEntity } from '../../db/entities/execution';
import type { NewAuditEvent } from '../../db/repositories/audit-event-repository';
import { ExecutionAdmissionRepository, type Admission } from '../../db/repositories/execution-admission-repository';
import { ExecutionRepository, type NewExecution } from '../../db/repositories/execution-repository';
import { renderFlowKey, type FlowPolicy } from '../../workflows/engine';
import { FlowKeyInvalid, FlowLimitReached, FlowQueueFull } from '../errors';
import { FLOW_QUEUE_DEFAULTS } from './limits';

/** Who starts: a start from outside (API, webhook, signal, re-run), a sub-workflow child, or a cron tick's own run. */
export type FlowCaller = { kind: 'start' } | { kind: 'child' } | { kind: 'scheduled'; queuedId: string };

export interface Admitted {
  row: ExecutionEntity;
  created: boolean;
  /** A debounce start folded into the key's queued run (answered with that run). */
  merged?: boolean;
  /** Holders ended as cancelled by a cancel-in-progress start: their Temporal workflows are cancelled next. */
  cancelled: string[];
  auditId?: number;
}

/** Renders the key, then admits the start in one transaction under the key's lock. Throws FlowKeyInvalid, FlowLimitReached, FlowQueueFull. */
export async function admitRun(
  db: DataSource | EntityManager,
  execution: NewExecution,
  policy: FlowPolicy,
  caller: FlowCaller,
  audit?: NewAuditEvent,
): Promise<Admitted> {
  const flowKey = keyOf(execution, policy);
  const scope = { organizationId: execution.organizationId, workflowId: execution.workflowId, flowKey };
  const manager = 'manager' in db ? db.manager : db;
  const queuedId = caller.kind === 'scheduled' ? caller.queuedId : undefined;
  const caps = { maxQueued: FLOW_QUEUE_DEFAULTS.perKey, maxQueuedTotal: FLOW_QUEUE_DEFAULTS.perOrganization };
  return manager.transaction(async (m) => {
    const flows = new ExecutionAdmissionRepository(m);
    await flows.lockKey(scope);
    if (policy.kind === 'debounce') {
      // A child runs at once: debounce folds bursts of triggers, and a parent waits for its own child.
      if (caller.kind === 'child') return { ...(await new ExecutionRepository(m).insertIdempotent(execution, audit)), cancelled: [] };
      const debounce = { flowKey, periodMs: policy.periodMs, maxWaitMs: policy.maxWaitMs ?? policy.periodMs, queuedId };
      const merged = await flows.mergeDebounced(execution, debounce);
      if (merged) return { row: merged, created: false, merged: true, cancelled: [] };
      return settled(await flows.queueDebounced(execution, debounce, audit), flowKey, 'debounce', true, caps);
    }
    if (policy.kind === 'throttle') {
      const admission = {
        flowKey,
        limit: policy.limit,
        periodMs: policy.periodMs,
        refuseIfLater: caller.kind === 'child',
        ...caps,
        queuedId,
      };
      return settled(await flows.admitThrottle(execution, admission, audit), flowKey, 'throttle', caller.kind !== 'child', caps);
    }
    const mode = caller.kind === 'child' ? 'refuse' : policy.onLimit;
    const maxQueued = Math.min(policy.maxQueued ?? caps.maxQueued, caps.maxQueued);
    const admission = await flows.admitConcurrency(
      execution,
      { flowKey, limit: policy.limit, mode, maxQueued, maxQueuedTotal: caps.maxQueuedTotal, queuedId },
      audit,
    );
    const admitted = settled(admission, flowKey, 'concurrency', mode === 'queue', { ...caps, maxQueued });
    // cancel-in-progress: the oldest holders past the limit end now (their slots go to this run).
    const cancelled =
      admitted.created && mode === 'cancel-in-progress' && admission.held >= policy.limit
        ? admission.holders.slice(0, admission.held - policy.limit + 1)
        : [];
    const executions = new ExecutionRepository(m);
    for (const id of cancelled)
      await executions.finish(
        id,
        'cancelled',
        {},
        {
          type: 'CANCELLED',
          message: `cancelled by execution ${admitted.row.id}, a newer run of concurrency key "${flowKey}" (cancel-in-progress)`,
        },
      );
    return { ...admitted, cancelled };
  });
}

function keyOf(execution: NewExecution, policy: FlowPolicy): string {
  try {
    return renderFlowKey(policy.key, {
      inputs: execution.inputs,
      trigger: execution.trigger,
      workflowId: execution.workflowId,
      workflowKey: execution.workflowKey,
      alias: execution.alias,
    });
  } catch (error) {
    throw new FlowKeyInvalid(error instanceof Error ? error.message : String(error));
  }
}

/** A written or found row, or the reason nothing was written: a full queue when the start would have queued, else the limit. */
function settled(
  admission: Admission,
  flowKey: string,
  kind: FlowPolicy['kind'],
  wouldQueue: boolean,
  caps: { maxQueued: number; maxQueuedTotal: number },
): Admitted {
  if (admission.row)
    return {
      row: admission.row,
      created: admission.created,
      cancelled: [],
      ...(admission.auditId !== undefined ? { auditId: admission.auditId } : {}),
    };
  if (wouldQueue && admission.queued >= caps.maxQueued) throw new FlowQueueFull(flowKey, caps.maxQueued, 'key');
  if (wouldQueue && admission.queuedTotal >= caps.maxQueuedTotal) throw new FlowQueueFull(flowKey, caps.maxQueuedTotal, 'organization');
  throw new FlowLimitReached(flowKey, kind, admission.holders);
}
