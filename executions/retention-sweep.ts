/**
 * Retention: removes ended executions past their time, with everything hanging
 * off them (steps, logs, events, waits, idempotent signal deliveries), in bounded
 * batches. Each batch is one short transaction: lock up to `batchSize` expired
 * executions (`FOR UPDATE SKIP LOCKED`, so replicas sweeping at once take
 * different rows and never block each other or a writer), delete their
 * dependent rows, then the executions. Batches repeat until one comes back
 * short, with a pause between them so the pool is never held for long.
 *
 * Which executions are expired is decided at sweep time (ExecutionSweepRepository.claimExpired):
 * a workflow's override, else its organization's, else the default; a changed
 * setting applies to executions that ended before it. Running and waiting
 * executions are never removed, nor an ended one with an open child or an open
 * ancestor.
 *
 * Other tables with their own retention plug in as sweep steps (`days`, and
 * `deleteOlderThan(cutoff, limit)`, called until it removes fewer than `limit`).
 */
import type { DataSource } from 'typeorm';
import { ExecutionEventRepository } from '../db/repositories/execution-event-repository';
import { ExecutionLogRepository } from '../db/repositories/execution-log-repository';
import { ExecutionSweepRepository, type ExpiredPosition } from '../db/repositories/execution-sweep-repository';
import { ExecutionStepRepository } from '../db/repositories/execution-step-repository';
import { ExecutionWaitRepository } from '../db/repositories/execution-wait-repository';
import { SignalDeliveryRepository } from '../db/repositories/signal-delivery-repository';

const DAY_MS = 86_400_000;

/** Another table swept with the executions, by its own retention (the audit trail's AUDIT_RETENTION_DAYS). */
export interface RetentionSweepStep {
  /** Names its count in the sweep's totals. */
  name: string;
  /** Days its rows are kept. */
  days: number;
  /** Removes up to `limit` rows older than `cutoff`; answers how many. */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}

/** Rows removed with the executions, by table. */
export interface ExecutionRowCounts {
  executions: number;
  steps: number;
  logs: number;
  events: number;
  waits: number;
  signalDeliveries: number;
}

/** Rows one sweep removed, by table (sweep steps by their name), and the batches it took. */
export interface RetentionCounts extends ExecutionRowCounts {
  batches: number;
  [step: string]: number;
}

export interface RetentionSweepOptions {
  dataSource: DataSource;
  /** Days an ended execution is kept when neither its workflow nor its organization says otherwise; 0: forever. */
  defaultDays: number;
  /** Executions one batch removes. */
  batchSize: number;
  /** Pause between two batches of one sweep (default 50 ms). */
  pauseMs?: number;
  steps?: RetentionSweepStep[];
}

const emptyCounts = (): RetentionCounts => ({ executions: 0, steps: 0, logs: 0, events: 0, waits: 0, signalDeliveries: 0, batches: 0 });

export class RetentionSweeper {
  private stopping = false;

  constructor(private readonly options: RetentionSweepOptions) {}

  /** Ends a sweep under way after its current batch. */
  stop(): void {
    this.stopping = true;
  }

  /** Sweeps until a batch comes back short (or `stop()`); answers what it removed. */
  async sweepOnce(now: Date = new Date()): Promise<RetentionCounts> {
    const totals = emptyCounts();
    const { batchSize, pauseMs = 50 } = this.options;
    let after: ExpiredPosition | undefined;
    for (;;) {
      const { removed: batch, last } = await this.sweepBatch(now, after);
      after = last;
      totals.batches += 1;
      for (const [table, rows] of Object.entries(batch) as Array<[string, number]>) totals[table] = (totals[table] ?? 0) + rows;
      if (batch.executions < batchSize || this.stopping) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    for (const step of this.options.steps ?? []) {
      const cutoff = new Date(now.getTime() - step.days * DAY_MS);
      let removed = batchSize;
      while (removed === batchSize && !this.stopping) {
        removed = await step.deleteOlderThan(cutoff, batchSize);
        totals[step.name] = (totals[step.name] ?? 0) + removed;
        if (removed === batchSize) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
    return totals;
  }

  /**
   * One batch, in one transaction: the expired executions' dependent rows, then the executions. `after`:
   * where the previous batch of the same sweep stopped (`last`), so a batch never scans again what one before it skipped.
   */
  async sweepBatch(now: Date = new Date(), after?: ExpiredPosition): Promise<{ removed: ExecutionRowCounts; last?: ExpiredPosition }> {
    const { dataSource, defaultDays, batchSize } = this.options;
    return dataSource.transaction(async (manager) => {
      const executions = new ExecutionSweepRepository(manager);
      const claimed = await executions.claimExpired(now, defaultDays > 0 ? defaultDays : null, batchSize, after);
      const ids = claimed.map((row) => row.id);
      if (ids.length === 0) return { removed: { executions: 0, steps: 0, logs: 0, events: 0, waits: 0, signalDeliveries: 0 } };
      // Explicit deletes (not the foreign keys' cascade): each an index range scan, counted for the sweep's totals.
      // Only execution_step_payloads (shared step items) go by their foreign key's cascade, with the executions.
      const steps = await new ExecutionStepRepository(manager).deleteOfExecutions(ids);
      const logs = await new ExecutionLogRepository(manager).deleteOfExecutions(ids);
      const events = await new ExecutionEventRepository(manager).deleteOfExecutions(ids);
      const waits = await new ExecutionWaitRepository(manager).deleteOfExecutions(ids);
      const signalDeliveries = await new SignalDeliveryRepository(manager).deleteOfExecutions(ids);
      const removed = { executions: await executions.deleteByIds(ids), steps, logs, events, waits, signalDeliveries };
      return { removed, last: claimed[claimed.length - 1] };
    });
  }
}
