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
 * production got. The export is read in ./export-document.ts, answered by
 * ./recorded-stubs.ts and compared in ./replay-compare.ts.
 */
import { validateDefinition as validateWithEngine, type WorkflowDefinition } from '../workflows/engine';
import { loadDefinition, normalizeDefinition } from './load';
import { DefinitionInvalid } from './errors';
import { runWorkflow, type RunOptions, type RunResult } from './run';
import type { Stubs } from './stubs';
import { definitionOfExport, readExport, type ExecutionExport } from './export-document';
import { recordedStubs } from './recorded-stubs';
import { compare, type Divergence } from './replay-compare';

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
