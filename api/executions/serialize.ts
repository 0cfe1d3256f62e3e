/** Execution, step and log entities to API shapes: optional fields omitted rather than null, ISO timestamps. */
import type { ExecutionEntity, ExecutionStatus } from '../../db/entities/execution';
import type { ExecutionEvent } from '../../db/repositories/execution-event-repository';
import type { ExecutionLogEntity } from '../../db/entities/execution-log';
import type { ExecutionStepEntity } from '../../db/entities/execution-step';
import type { StepRecord } from '../../workflows/engine';
import { iso } from '../http/iso-date';

/** Larger step records are replaced by a marker so a state read never ships megabytes (engine-reference §8.4). */
export const STEP_RECORD_CAP_BYTES = 64 * 1024;

/** Where an execution's Temporal history is shown, and how long Temporal keeps a closed run's history. */
export interface TemporalLinks {
  /** Temporal Web UI base URL; links to executions are built from it when set. */
  temporalUiUrl?: string;
  /** Days the namespace keeps a closed run (unset or 0: unknown, links are always given). */
  temporalRetentionDays?: number;
}

const DAY_MS = 86_400_000;

export function executionJson(
  row: ExecutionEntity,
  links: TemporalLinks,
  status: ExecutionStatus = row.status,
  now: Date = new Date(),
  /** A queued run's place in its key's queue, when the caller read it. */
  queuePosition?: number,
): Record<string, unknown> {
  const { temporalUiUrl, temporalRetentionDays } = links;
  // Temporal deletes a closed run's history once its namespace's retention has passed: say so rather than link to nothing.
  const endedDaysAgo = row.completedAt !== null ? (now.getTime() - row.completedAt.getTime()) / DAY_MS : undefined;
  const historyGone =
    temporalRetentionDays !== undefined && temporalRetentionDays > 0 && endedDaysAgo !== undefined && endedDaysAgo > temporalRetentionDays;
  const uiUrl =
    temporalUiUrl && !historyGone
      ? `${temporalUiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(row.temporalNamespace)}/workflows/${encodeURIComponent(row.id)}${row.temporalRunId ? `/${row.temporalRunId}` : ''}`
      : undefined;
  return {
    id: row.id,
    workflowId: row.workflowId,
    ...(row.workflowKey !== null ? { workflowKey: row.workflowKey } : {}),
    revision: row.revision,
    ...(row.alias !== null ? { alias: row.alias } : {}),
    status,
    inputs: row.inputs,
    ...(row.outputs !== null ? { outputs: row.outputs } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    trigger: row.trigger,
    ...(row.correlationKey !== null ? { correlationKey: row.correlationKey } : {}),
    ...(row.idempotencyKey !== null ? { idempotencyKey: row.idempotencyKey } : {}),
    ...(row.parentExecutionId !== null ? { parentExecutionId: row.parentExecutionId } : {}),
    ...(row.createdBy !== null ? { createdBy: row.createdBy } : {}),
    ...(row.rerunOf !== null ? { rerunOf: row.rerunOf } : {}),
    ...(row.rerunKind !== null ? { rerunKind: row.rerunKind } : {}),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...(row.completedAt !== null ? { completedAt: iso(row.completedAt) } : {}),
    ...(row.flowKey !== null && row.flowKind !== null
      ? {
          flowControl: {
            kind: row.flowKind,
            key: row.flowKey,
            ...(queuePosition !== undefined ? { position: queuePosition } : {}),
            ...(row.notBefore !== null ? { notBefore: iso(row.notBefore) } : {}),
            ...(row.admittedAt !== null ? { admittedAt: iso(row.admittedAt) } : {}),
          },
        }
      : {}),
    // What the open-runs sweep recorded (executions/check-open-runs.ts): reads never ask Temporal.
    ...(row.runHealth && (status === 'running' || status === 'waiting') ? { health: row.runHealth } : {}),
    temporal: {
      workflowId: row.id,
      ...(row.temporalRunId !== null ? { runId: row.temporalRunId } : {}),
      namespace: row.temporalNamespace,
      ...(uiUrl ? { uiUrl } : {}),
      ...(historyGone
        ? {
            historyAvailable: false,
            reason: `Temporal keeps a run's history for ${plural(temporalRetentionDays, 'day')} after it closes; this execution ended ${plural(Math.floor(endedDaysAgo), 'day')} ago.`,
          }
        : {}),
    },
  };
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

export function cappedRecord(record: StepRecord | Record<string, unknown>): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes <= STEP_RECORD_CAP_BYTES) return record as Record<string, unknown>;
  const { stepId, status, run, startedAt, completedAt } = record as StepRecord;
  return { stepId, status, run, startedAt, completedAt, _truncated: true, payloadBytes: bytes };
}

/**
 * The latest run of each step, by step id (what the state shows). A fan-out's progress `{done, total, failed}`
 * is also `fanOut`, as the compatible engine shows it: live while the step runs, then as its end recorded it.
 */
export function latestRecords(rows: ExecutionStepEntity[]): Record<string, Record<string, unknown>> {
  const byStep: Record<string, ExecutionStepEntity> = {};
  for (const row of rows) if (!byStep[row.stepId] || byStep[row.stepId].run <= row.run) byStep[row.stepId] = row;
  return Object.fromEntries(
    Object.entries(byStep).map(([stepId, row]) => {
      const fanOut = row.record.metadata?.fanOut;
      return [stepId, fanOut ? { ...cappedRecord(row.record), fanOut } : cappedRecord(row.record)];
    }),
  );
}

export function logEntryJson(executionId: string, row: ExecutionLogEntity): Record<string, unknown> {
  return {
    id: `${executionId}:${row.seq}`,
    executionId,
    stepId: row.stepId,
    level: row.level,
    message: row.message,
    metadata: row.metadata ?? {},
    timestamp: iso(row.loggedAt),
  };
}

/** An event's data as the events stream sends it (the `data:` line), with its execution id. */
export function eventData(executionId: string, event: Pick<ExecutionEvent, 'data'>): Record<string, unknown> {
  return { executionId, ...event.data };
}
