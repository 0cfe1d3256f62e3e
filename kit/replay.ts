/**
 * Replaying an execution export (GET /workflows/executions/{id}/export)
 * locally: the export's definition (or one you changed) runs with the
 * recorded inputs and trigger payload, every effectful step (http-request,
 * code-exec, operator plugins, signal and webhook waits, delays,
 * sub-workflows) answered by its RECORDED result through the kit's stubs, the
 * pure steps computed again by the engine; then the local outcome is compared
 * with the recorded one: the execution's status, outputs and error, and each
 * step's status, runs, items, ports and error. So a failed production run
 * becomes a regression test, and a fix can be tried against the responses
 * production got.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import {
  findPlugin,
  pinnedPluginOf,
  validateDefinition as validateWithEngine,
  type StepRecord,
  type TriggerInfo,
  type WorkflowDefinition,
} from '../workflows/engine';
import { loadDefinition, normalizeDefinition } from './load';
import { DefinitionInvalid } from './errors';
import { runWorkflow, type RunOptions, type RunResult } from './run';
import type { StubContext, StubResult, StubSpec, Stubs } from './stubs';

export const EXPORT_FORMAT = 'platform-execution-export';

/** The export document (docs/api.md, "Exporting an execution"); the parts a replay reads are typed. */
export interface ExecutionExport {
  format: typeof EXPORT_FORMAT;
  version: 1;
  exportedAt: string;
  execution: {
    id: string;
    status: string;
    inputs: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    error?: { type?: string; message?: string; stepId?: string } & Record<string, unknown>;
    correlationKey?: string;
  } & Record<string, unknown>;
  workflow: { id: string; key?: string; name?: string; nrn?: string; revision: number; alias?: string };
  definition: Record<string, unknown> | null;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  steps: StepRecord[];
  children: string[];
  logs: Array<Record<string, unknown>>;
  events: Array<{ id: number; type: string; data: Record<string, unknown> }>;
}

/** A file or text that is not an export this kit reads. */
export class ExportInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportInvalid';
  }
}

/** Reads an export: a path to its file, its JSON text, or the parsed document. */
export function readExport(source: string | ExecutionExport | Record<string, unknown>): ExecutionExport {
  let value: unknown = source;
  if (typeof source === 'string') {
    const text = source.trimStart().startsWith('{') ? source : readText(source);
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ExportInvalid(`the export is not JSON: ${(error as Error).message}`);
    }
  }
  const doc = value as Partial<ExecutionExport> | null;
  if (doc === null || typeof doc !== 'object' || doc.format !== EXPORT_FORMAT)
    throw new ExportInvalid(`not an execution export (its "format" is not "${EXPORT_FORMAT}")`);
  if (doc.version !== 1) throw new ExportInvalid(`export version ${String(doc.version)} is not one this kit reads (1)`);
  if (!doc.execution || !Array.isArray(doc.steps)) throw new ExportInvalid('the export has no execution or steps');
  return doc as ExecutionExport;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ExportInvalid(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Built-in steps that run in the workflow but wait on the world: replayed from the recording too. */
const RECORDED_INLINE = new Set(['signal-wait', 'webhook-wait', 'delay', 'sub-workflow']);

/** Whether a step's plugin answers from the recording: anything effectful (or unknown here), waits, timers and children. */
function isRecorded(pluginType: string): boolean {
  const plugin = findPlugin(pluginType);
  if (plugin?.kind === 'trigger') return false;
  return !plugin || !plugin.inline || RECORDED_INLINE.has(pluginType);
}

/**
 * Stubs that answer each recorded step from the export: the n-th activation of a
 * step gets its run n's items, ports or error (one item per call when the run
 * fanned out per item). A call the recording does not have (a step that now runs
 * more often, or a new one) fails with REPLAY_NOT_RECORDED.
 */
export function recordedStubs(doc: ExecutionExport, definition: WorkflowDefinition = definitionOfExport(doc)): Stubs {
  const byRun = new Map(doc.steps.map((record) => [`${record.stepId}#${record.run}`, record]));
  const activations = new Map<string, number>();
  const handler = (ctx: StubContext): StubResult => {
    const index = ctx.itemIndex ?? 0;
    // A new activation starts with its first item's first attempt (fan-out calls start in item order).
    if (index === 0 && ctx.attempt === 1) activations.set(ctx.stepId, (activations.get(ctx.stepId) ?? 0) + 1);
    const run = activations.get(ctx.stepId) ?? 1;
    const record = byRun.get(`${ctx.stepId}#${run}`);
    if (!record || (record.status !== 'completed' && record.status !== 'failed' && record.status !== 'skipped'))
      return {
        status: 'failure',
        error: {
          code: 'REPLAY_NOT_RECORDED',
          message: record
            ? `step "${ctx.stepId}" run ${run} was ${record.status} when the execution was exported: it has no result to replay`
            : `step "${ctx.stepId}" run ${run} has no recorded result in the export`,
        },
      };
    if (record.status === 'failed')
      return {
        status: 'failure',
        error: { code: record.error?.code ?? 'STEP_FAILED', message: record.error?.message ?? `step "${ctx.stepId}" failed` },
      };
    if (record.status === 'skipped') return { status: 'skipped' };
    const items = structuredClone(record.items ?? []);
    if (record.metadata?.fanOut !== undefined) return { status: 'success', items: items[index] ? [items[index]] : [] };
    return { status: 'success', items, activePorts: [...(record.activePorts ?? ['default'])] };
  };
  const stubs: Stubs = {};
  for (const step of Object.values(definition.steps)) {
    const pluginType = step.type === 'wait' && !step.pluginType ? 'signal-wait' : step.pluginType;
    if (!pluginType || step.type === 'trigger' || Object.hasOwn(stubs, pluginType) || !isRecorded(pluginType)) continue;
    stubs[pluginType] = findPlugin(pluginType) ? { handler } : operatorStub(definition, pluginType, handler);
  }
  return stubs;
}

/** An operator's plugin, unknown to the kit: a module with the output ports its steps' connections use, in its pinned mode. */
function operatorStub(definition: WorkflowDefinition, pluginType: string, handler: StubSpec['handler']): StubSpec {
  const ids = new Set(
    Object.values(definition.steps)
      .filter((step) => step.pluginType === pluginType)
      .map((step) => step.id),
  );
  const ports = new Set(definition.connections.filter((c) => ids.has(c.from) && c.sourcePort !== 'default').map((c) => c.sourcePort));
  const pin = pinnedPluginOf(definition, pluginType);
  return {
    handler,
    ...(pin?.executeMode ? { executeMode: pin.executeMode } : {}),
    ports: { outputs: [...ports].map((name) => ({ name })) },
  };
}

function definitionOfExport(doc: ExecutionExport): WorkflowDefinition {
  if (doc.definition === null || typeof doc.definition !== 'object')
    throw new ExportInvalid(
      `the export of ${doc.execution.id} has no definition (its revision is gone): replay it with a definition of your own`,
    );
  return normalizeDefinition(doc.definition);
}

export interface ReplayOptions {
  /** Run this definition instead of the export's (say, a fix): its effectful steps still answer from the recording. */
  definition?: WorkflowDefinition | Record<string, unknown>;
  /** Or a YAML or JSON file of it. */
  file?: string;
  /** Config variables the run reads (the export does not hold them); a variable not given reads as undefined. */
  vars?: Record<string, unknown>;
  /** Secret values (default: a placeholder for each secret the definition reads; recorded steps never see them). */
  secrets?: Record<string, string>;
  /** Stubs that win over the recorded ones (by plugin type). */
  stubs?: Stubs;
  onEvent?: RunOptions['onEvent'];
}

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

export interface ReplayResult {
  /** No divergence: the local run took the recorded path to the recorded outcome. */
  matches: boolean;
  /** Steps first, in the order the local run reached them (the first is where the runs part), then the execution's own. */
  divergences: Divergence[];
  /** The local run. */
  run: RunResult;
  recorded: { executionId: string; status: string; outputs?: Record<string, unknown>; error?: ExecutionExport['execution']['error'] };
}

/** Replays an export (a path, JSON text or the document) and compares the local run with the recorded one. */
export async function replayExport(
  source: string | ExecutionExport | Record<string, unknown>,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const doc = readExport(source);
  const definition = replayDefinition(doc, options);
  /** The order the local run reached its steps (their first event). */
  const reached = new Map<string, number>();
  const run = await runWorkflow({
    definition,
    inputs: doc.inputs ?? doc.execution.inputs,
    ...(doc.trigger?.stepId && definition.steps[doc.trigger.stepId]?.type === 'trigger' ? { trigger: doc.trigger.stepId } : {}),
    ...(doc.trigger?.port ? { triggerPort: doc.trigger.port } : {}),
    ...(doc.trigger?.payload ? { triggerPayload: doc.trigger.payload } : {}),
    ...(doc.execution.correlationKey !== undefined ? { correlationKey: doc.execution.correlationKey } : {}),
    stubs: { ...recordedStubs(doc, definition), ...options.stubs },
    vars: options.vars,
    missingConfig: 'undefined',
    secrets: options.secrets ?? placeholderSecrets(definition),
    onEvent: (event, executionId) => {
      if ('stepId' in event && !reached.has(event.stepId)) reached.set(event.stepId, reached.size);
      options.onEvent?.(event, executionId);
    },
  });
  const divergences = compare(doc, run, reached);
  const { id, status, outputs, error } = doc.execution;
  return {
    matches: divergences.length === 0,
    divergences,
    run,
    recorded: { executionId: id, status, ...(outputs !== undefined ? { outputs } : {}), ...(error !== undefined ? { error } : {}) },
  };
}

function replayDefinition(doc: ExecutionExport, options: ReplayOptions): WorkflowDefinition {
  if (options.definition && options.file) throw new TypeError('replayExport takes a definition or a file, not both');
  if (options.file) {
    // Parsed here and validated by the run, with the recorded stubs' descriptors (operator plugins it uses included).
    const loaded = loadDefinition(options.file);
    if (!loaded.definition) throw new DefinitionInvalid(loaded.errors, options.file);
    return loaded.definition;
  }
  if (options.definition) return normalizeDefinition(options.definition);
  return definitionOfExport(doc);
}

/** A stand-in for each secret the definition reads: recorded steps never use them, and nothing in the export holds one. */
function placeholderSecrets(definition: WorkflowDefinition): Record<string, string> {
  const names = validateWithEngine(definition)
    .references.filter((reference) => reference.kind === 'secret')
    .map((reference) => reference.name);
  return Object.fromEntries(names.map((name) => [name, `<secret ${name}: not in the export>`]));
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
function compare(doc: ExecutionExport, run: RunResult, reached: Map<string, number>): Divergence[] {
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
