/**
 * `platform-api/kit/compat`: the compatible engine's test entry point,
 * `runWorkflowE2E({ yamlPath, inputs, stubs })`, on this kit's `runWorkflow`.
 * A test file written for that engine's harness runs here once its import
 * names this module. It reads what that harness documents and nothing more:
 * an option, a stub field or a stub result it does not know is refused with
 * what to write instead, never ignored (docs/authoring.md, "Tests written for
 * the compatible engine", maps every field). `executor: 'temporal'` runs the
 * same test on a real Temporal worker (./temporal/run.ts); that harness's
 * document helpers are ./compat-documents.ts.
 */
import type { WorkflowDefinition } from '../workflows/engine';
import { WorkflowRunFailed } from './errors';
import { StepCallFailure } from './plugin-host';
import { runWorkflow, type RunOptions, type RunResult, type StepResult } from './run';
import type { StubContext, StubHandler, StubResult, StubReturn, StubSpec, Stubs } from './stubs';

export { WorkflowRunFailed } from './errors';
export {
  normalizeWorkflowDocument,
  parseYamlDocument,
  schemaValidate,
  type DocumentIssue,
  type ParsedYamlDocument,
  type SchemaValidationResult,
} from './compat-documents';

/** That harness's name for a (normalized) workflow definition. */
export type IWorkflowDefinition = WorkflowDefinition;

/** A stub as that harness takes it: a handler, or `{ handler, registryType, executeMode }` (this kit's `kind` and `ports` too). */
export interface E2EStubSpec {
  handler?: StubHandler;
  /** The plugin's kind (this kit's `kind`): a `trigger` stub only declares the plugin, its handler never runs. */
  registryType?: 'trigger' | 'module' | 'decider';
  kind?: StubSpec['kind'];
  executeMode?: StubSpec['executeMode'];
  ports?: StubSpec['ports'];
  /** The plugin's ports as that harness declares them (this kit's `ports.outputs` and `ports.inputs`). */
  outputPorts?: Array<{ name: string }>;
  inputPorts?: Array<{ name: string; reentry?: boolean }>;
}

export type E2EStubs = Record<string, StubHandler | E2EStubSpec>;

export interface RunWorkflowE2EOptions {
  /** The workflow file (YAML or JSON). */
  yamlPath: string;
  /** The fired trigger's output: `workflow.inputs` and `steps.<trigger>.outputs`. */
  inputs?: Record<string, unknown>;
  /** Plugin stubs by plugin type (`pluginStubs` is the same option under the name that harness's tests use). */
  stubs?: E2EStubs;
  pluginStubs?: E2EStubs;
  /**
   * `'in-process'` (default): the engine in this process, instant clock. `'temporal'`: the same run on a real
   * Temporal worker with the project's workflow bundle, the stubs as its plugin activities (docs/authoring.md).
   */
  executor?: 'in-process' | 'temporal';
}

/** What a stub returns in that harness: a step result (`status` required, or `{ outputs }` alone for a success). */
export type IStepResult = StubResult;

/** One step of the run, as that harness reports it. */
export type E2EStepRecord = StepResult;

/** The run's state when it ended. */
export interface IWorkflowContextSnapshot {
  status: RunResult['status'];
  inputs: Record<string, unknown>;
  /** The steps that ran, by id; a step on a path not taken is absent (`steps.x === undefined`). */
  steps: Record<string, E2EStepRecord>;
  variables: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

export interface WorkflowE2EResult {
  status: RunResult['status'];
  outputs: Record<string, unknown>;
  steps: Record<string, E2EStepRecord>;
  variables: Record<string, unknown>;
  /** When the run failed: the cause, and the step it failed at. */
  error?: RunResult['error'];
  executionId: string;
  logs: RunResult['logs'];
  finalSnapshot: IWorkflowContextSnapshot;
}

const OPTIONS = new Set(['yamlPath', 'inputs', 'stubs', 'pluginStubs', 'executor']);
const SPEC_KEYS = new Set(['handler', 'registryType', 'kind', 'executeMode', 'ports', 'outputPorts', 'inputPorts']);
const KINDS = new Set(['trigger', 'module', 'decider']);
const RESULT_KEYS = new Set(['status', 'outputs', 'items', 'activePorts', 'error', 'metadata']);
const RESULT_STATUSES = new Set<unknown>(['success', 'failure', 'skipped']);
const NATIVE = "runWorkflow({ file, inputs, stubs, vars, secrets, signals, workflows, … }) from 'platform-api/kit'";

/**
 * Runs the workflow in `yamlPath` once, as that harness does: resolves with the result of a run that completed,
 * rejects with `WorkflowRunFailed` (`step "x" failed: message (TYPE)`, the whole result as its `result`) when the
 * execution failed, as that engine's tests expect (`await expect(run()).rejects.toThrow(/step or message/)`).
 */
export async function runWorkflowE2E(options: RunWorkflowE2EOptions): Promise<WorkflowE2EResult> {
  if (options === null || typeof options !== 'object') throw new TypeError('runWorkflowE2E takes { yamlPath, inputs, stubs }');
  const unknown = Object.keys(options).filter((key) => !OPTIONS.has(key));
  if (unknown.length > 0)
    throw new TypeError(
      `runWorkflowE2E takes yamlPath, inputs and stubs (or pluginStubs), as that engine's harness documents; ` +
        `it does not know ${unknown.join(', ')}. For more (vars, secrets, signal answers, sub-workflows, the clock) call ${NATIVE}`,
    );
  if (typeof options.yamlPath !== 'string' || options.yamlPath === '')
    throw new TypeError('runWorkflowE2E needs yamlPath: the path of the workflow file');
  if (options.stubs !== undefined && options.pluginStubs !== undefined)
    throw new TypeError('runWorkflowE2E takes stubs or pluginStubs (the same option), not both');
  const executor = options.executor ?? 'in-process';
  if (executor !== 'in-process' && executor !== 'temporal')
    throw new TypeError(`runWorkflowE2E: executor is 'in-process' or 'temporal' (got ${JSON.stringify(executor)})`);
  const run: RunOptions = {
    file: options.yamlPath,
    inputs: options.inputs ?? {},
    stubs: stubsOf(options.stubs ?? options.pluginStubs ?? {}),
  };
  // Loaded only when asked for: the in-process path needs neither the Temporal SDK nor the workflow bundle.
  const result = executor === 'temporal' ? await (await temporalExecutor()).runWorkflowOnTemporal(run) : await runWorkflow(run);
  const e2e = e2eResult(result, options.inputs ?? {});
  if (e2e.status === 'failed') throw new WorkflowRunFailed(e2e.error!, e2e);
  return e2e;
}

let temporal: Promise<typeof import('./temporal')> | undefined;

function temporalExecutor(): Promise<typeof import('./temporal')> {
  return (temporal ??= import('./temporal/index.js'));
}

/**
 * Shuts down now what `executor: 'temporal'` started (its worker, and the Temporal dev server when the kit
 * started one); without it they stop by themselves two seconds after the last run. For an `after` hook.
 */
export async function closeTemporalExecutor(): Promise<void> {
  if (temporal) await (await temporal).closeTemporalExecutor();
}

function stubsOf(stubs: E2EStubs): Stubs {
  if (stubs === null || typeof stubs !== 'object' || Array.isArray(stubs))
    throw new TypeError('runWorkflowE2E: stubs is an object of plugin type → handler or { handler, registryType, executeMode }');
  return Object.fromEntries(Object.entries(stubs).map(([name, stub]) => [name, stubOf(name, stub)]));
}

function stubOf(name: string, stub: StubHandler | E2EStubSpec): StubHandler | StubSpec {
  if (typeof stub === 'function') return strict(name, stub);
  if (stub === null || typeof stub !== 'object')
    throw new TypeError(`stub "${name}": write a handler, or { handler, registryType, executeMode }`);
  const unknown = Object.keys(stub).filter((key) => !SPEC_KEYS.has(key));
  if (unknown.length > 0)
    throw new TypeError(
      `stub "${name}": ${unknown.join(', ')} is not a stub field here; a stub takes handler, registryType, executeMode (and ports)`,
    );
  const { registryType, kind, handler, outputPorts, inputPorts, ...rest } = stub;
  if ((outputPorts !== undefined || inputPorts !== undefined) && rest.ports !== undefined)
    throw new TypeError(`stub "${name}": give ports, or outputPorts and inputPorts, not both`);
  if (registryType !== undefined && !KINDS.has(registryType))
    throw new TypeError(`stub "${name}": registryType is trigger, module or decider (got ${JSON.stringify(registryType)})`);
  if (registryType !== undefined && kind !== undefined && registryType !== kind)
    throw new TypeError(`stub "${name}": registryType ${registryType} and kind ${kind} disagree; give one`);
  const spec: StubSpec = { ...rest };
  if (outputPorts !== undefined || inputPorts !== undefined)
    spec.ports = { ...(outputPorts ? { outputs: outputPorts } : {}), ...(inputPorts ? { inputs: inputPorts } : {}) };
  if ((registryType ?? kind) !== undefined) spec.kind = registryType ?? kind;
  if (handler !== undefined) spec.handler = typeof handler === 'function' ? strict(name, handler) : handler;
  return spec;
}

/** The handler, with what it returns held to that harness's result shape. */
function strict(name: string, handler: StubHandler): StubHandler {
  return async (ctx: StubContext, same: StubContext) => checkResult(name, ctx.stepId, await handler(ctx, same));
}

function checkResult(name: string, stepId: string, returned: StubReturn): StubReturn {
  const refuse = (what: string) =>
    new StepCallFailure(
      'STUB_INVALID_RESULT',
      `the stub of ${name} (step "${stepId}") returned ${what}; under runWorkflowE2E a stub returns a step result: ` +
        `{ status: 'success', outputs: {…} }, { outputs: {…} }, or { status: 'failure', error: { message } } ` +
        `(runWorkflow also reads a plain object as the outputs)`,
      true,
    );
  if (returned === null || typeof returned !== 'object' || Array.isArray(returned))
    throw refuse(returned === undefined ? 'nothing' : Array.isArray(returned) ? 'an array' : JSON.stringify(returned));
  const value = returned as Record<string, unknown>;
  const keys = Object.keys(value);
  const outputsOnly = keys.length === 1 && keys[0] === 'outputs';
  if (!outputsOnly && !RESULT_STATUSES.has(value.status))
    throw refuse(
      Object.hasOwn(value, 'status') ? `status ${JSON.stringify(value.status)}` : `an object without a status (${keys.join(', ')})`,
    );
  const extra = keys.filter((key) => !RESULT_KEYS.has(key));
  if (extra.length > 0) throw refuse(`${extra.join(', ')} beside the result's fields (status, outputs, items, activePorts, error)`);
  for (const key of ['outputs', 'error'] as const)
    if (value[key] !== undefined && (value[key] === null || typeof value[key] !== 'object' || Array.isArray(value[key])))
      throw refuse(`${key} that is not an object`);
  return returned;
}

function e2eResult(result: RunResult, inputs: Record<string, unknown>): WorkflowE2EResult {
  // A step skipped without running (a branch not taken) has no record there: tests read `steps.x === undefined` as "did not run".
  const steps = Object.fromEntries(Object.entries(result.steps).filter(([, step]) => !(step.status === 'skipped' && step.runs === 0)));
  return {
    status: result.status,
    outputs: result.outputs,
    steps,
    variables: result.variables,
    ...(result.error ? { error: result.error } : {}),
    executionId: result.executionId,
    logs: result.logs,
    finalSnapshot: { status: result.status, inputs, steps, variables: result.variables, outputs: result.outputs },
  };
}
