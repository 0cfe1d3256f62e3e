/**
 * How a replay's local run is compared with the recorded one: each step's status, runs, error, output,
 * items and ports, steps the recording does not have, then the execution's status, outputs or error. Values
 * compare as JSON, two date-times alike whatever their value.
 */
import { isDeepStrictEqual } from 'node:util';
import type { StepRecord } from '../workflows/engine';
import type { ExecutionExport } from './export-document';
import type { RunResult } from './run';

export type DivergenceKind =
  | 'step-status'
  | 'step-runs'
  | 'step-output'
  | 'step-ports'
  | 'step-error'
  | 'step-extra'
  | 'execution-status'
  | 'execution-outputs'
  | 'execution-error';

/** One way the local run differs from the recorded one. */
export interface Divergence {
  kind: DivergenceKind;
  stepId?: string;
  message: string;
  recorded?: unknown;
  local?: unknown;
}

/** Values as JSON keeps them (a local `undefined` is a recorded absence). */
const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Equal as JSON, except that two date-times are alike whatever their value: a step that
 * reads the clock (a log line's `timestamp`, a `now()`) records when it ran, which a
 * replay cannot repeat and which is not the workflow's logic.
 */
function alike(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b || (DATE_TIME.test(a) && DATE_TIME.test(b));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((value, index) => alike(value, b[index]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && alike((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
    );
  }
  return a === b;
}

/**
 * The divergences, steps first in the order the local run reached them (where the runs part
 * comes first; a recorded step the local run never reached after them, in recorded order),
 * then the execution's own.
 */
export function compare(doc: ExecutionExport, run: RunResult, reached: Map<string, number>): Divergence[] {
  const divergences: Divergence[] = [];
  const latest = latestRecords(doc);
  const ran = (status: string | undefined) => status !== undefined && status !== 'skipped' && status !== 'pending';
  for (const [stepId, recorded] of latest) {
    const local = run.steps[stepId];
    const localStatus = local?.status ?? 'not run';
    const step = (kind: DivergenceKind, message: string, recordedValue: unknown, localValue: unknown) =>
      divergences.push({ kind, stepId, message: `step "${stepId}": ${message}`, recorded: recordedValue, local: localValue });
    if (!ran(recorded.status) && !ran(local?.status)) continue;
    if (recorded.status !== localStatus) {
      const why = local?.error ? ` (${local.error.message})` : '';
      step('step-status', `recorded ${recorded.status}, local ${localStatus}${why}`, recorded.status, localStatus);
      continue;
    }
    if (recorded.run !== local.runs)
      step('step-runs', `ran ${recorded.run} time(s) recorded, ${local.runs} locally`, recorded.run, local.runs);
    if (recorded.status === 'failed') {
      const a = { code: recorded.error?.code, message: recorded.error?.message };
      const b = { code: local.error?.code, message: local.error?.message };
      if (!isDeepStrictEqual(a, b)) step('step-error', `error differs: recorded ${show(a)}, local ${show(b)}`, a, b);
      continue;
    }
    const outputs = asJson(local.outputs);
    const items = asJson(local.items);
    if (!alike(recorded.outputs ?? {}, outputs))
      step('step-output', `output differs: recorded ${show(recorded.outputs)}, local ${show(outputs)}`, recorded.outputs, outputs);
    else if (!alike(recorded.items ?? [], items))
      step('step-output', `items differ: recorded ${show(recorded.items)}, local ${show(items)}`, recorded.items, items);
    else if (!isDeepStrictEqual([...(recorded.activePorts ?? [])].sort(), [...local.activePorts].sort()))
      step(
        'step-ports',
        `left through ${show(recorded.activePorts)} recorded, ${show(local.activePorts)} locally`,
        recorded.activePorts,
        local.activePorts,
      );
  }
  for (const [stepId, local] of Object.entries(run.steps)) {
    if (latest.has(stepId) || !ran(local.status)) continue;
    divergences.push({
      kind: 'step-extra',
      stepId,
      message: `step "${stepId}": ran locally (${local.status}) but not in the recorded run`,
      local: local.status,
    });
  }
  const recordedOrder = [...latest.keys()];
  const position = (stepId: string | undefined) =>
    reached.get(stepId ?? '') ?? reached.size + (recordedOrder.indexOf(stepId ?? '') + 1 || recordedOrder.length + 1);
  divergences.sort((a, b) => position(a.stepId) - position(b.stepId));
  const recorded = doc.execution;
  if (recorded.status !== run.status) {
    divergences.push({
      kind: 'execution-status',
      message: `execution: recorded ${recorded.status}, local ${run.status}${run.error ? ` (${run.error.message})` : ''}`,
      recorded: recorded.status,
      local: run.status,
    });
  } else if (run.status === 'completed') {
    const outputs = asJson(run.outputs);
    if (!alike(recorded.outputs ?? {}, outputs))
      divergences.push({
        kind: 'execution-outputs',
        message: `execution outputs differ: recorded ${show(recorded.outputs ?? {})}, local ${show(outputs)}`,
        recorded: recorded.outputs ?? {},
        local: outputs,
      });
  } else {
    const a = { type: recorded.error?.type, stepId: recorded.error?.stepId, message: recorded.error?.message };
    const b = { type: run.error?.type, stepId: run.error?.stepId, message: run.error?.message };
    if (!isDeepStrictEqual(a, b))
      divergences.push({
        kind: 'execution-error',
        message: `execution error differs: recorded ${show(a)}, local ${show(b)}`,
        recorded: a,
        local: b,
      });
  }
  return divergences;
}

/**
 * The latest run of each step, in the order the run reached the steps: their first
 * event (events are numbered in the order the workflow wrote them; start times can
 * tie), then steps without one in the order of the step records.
 */
function latestRecords(doc: ExecutionExport): Map<string, StepRecord> {
  const byStep = new Map<string, StepRecord>();
  for (const record of doc.steps) {
    const seen = byStep.get(record.stepId);
    if (!seen || seen.run <= record.run) byStep.set(record.stepId, record);
  }
  const order = new Map<string, number>();
  for (const event of doc.events ?? []) {
    const stepId = event.data?.stepId;
    if (typeof stepId === 'string' && !order.has(stepId)) order.set(stepId, order.size);
  }
  const position = (stepId: string) => order.get(stepId) ?? Number.MAX_SAFE_INTEGER;
  return new Map([...byStep].sort(([a], [b]) => position(a) - position(b)));
}
