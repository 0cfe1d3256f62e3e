/** `validate` and `run`: local commands, through the library (no server). */
import path from 'node:path';
import { definitionFiles } from '../children';
import { DefinitionInvalid, InputsInvalid, formatDefinitionError } from '../errors';
import { loadDefinition, type DefinitionError } from '../load';
import { runWorkflow, type RunResult } from '../run';
import type { StepEvent } from '../../workflows/engine';
import type { SignalAnswer } from '../local-effects';
import type { EgressPolicy } from '../../activities/egress/policy';
import { CliError, EXIT, type Output } from './output';
import { jsonObject, loadStubs } from './values';

export function formatError(file: string, error: DefinitionError): string {
  return formatDefinitionError(error, file);
}

export async function validateCommand(targets: string[], options: { stub?: string[] }, io: Output): Promise<number> {
  if (targets.length === 0) throw new CliError('validate needs files or folders', EXIT.usage);
  const plugins = await loadStubs(options.stub);
  let invalid = 0;
  let count = 0;
  for (const target of targets) {
    for (const file of filesOf(target)) {
      count += 1;
      const loaded = loadDefinition(file, { plugins });
      if (loaded.errors.length === 0) {
        io.out(`${io.green('ok')}   ${file}`);
        for (const warning of loaded.warnings) io.out(`${io.yellow('warn')} ${file} ${warning.path}: ${warning.message}`);
        continue;
      }
      invalid += 1;
      for (const error of loaded.errors) io.err(`${formatError(file, error)}`);
    }
  }
  io.out(`${count - invalid} of ${count} definitions valid`);
  return invalid > 0 ? EXIT.failed : EXIT.ok;
}

export function filesOf(target: string): string[] {
  try {
    return definitionFiles(target);
  } catch (error) {
    throw new CliError(`cannot read ${target}: ${(error as Error).message}`, EXIT.usage);
  }
}

export interface RunCommandOptions {
  inputs?: string;
  vars?: string;
  secrets?: string;
  signals?: string;
  stub?: string[];
  workflows?: string;
  trigger?: string;
  clock?: string;
  json?: boolean;
  /** Over the server's default policy (./egress.ts: --allow-egress, --allow-loopback, EGRESS_* settings). */
  egress?: Partial<EgressPolicy>;
}

export async function runCommand(file: string | undefined, options: RunCommandOptions, io: Output): Promise<number> {
  if (!file) throw new CliError('run needs a definition file', EXIT.usage);
  if (options.clock !== undefined && options.clock !== 'instant' && options.clock !== 'real')
    throw new CliError('--clock is instant or real', EXIT.usage);
  const signals = jsonObject(options.signals, '--signals');
  const started = Date.now();
  const live = !options.json && io.tty;
  let result: RunResult;
  try {
    result = await runWorkflow({
      file,
      inputs: jsonObject(options.inputs, '--inputs'),
      vars: jsonObject(options.vars, '--vars'),
      secrets: jsonObject(options.secrets, '--secrets') as Record<string, string> | undefined,
      stubs: await loadStubs(options.stub),
      workflows: options.workflows ? path.resolve(options.workflows) : undefined,
      trigger: options.trigger,
      clock: options.clock,
      egress: options.egress,
      // `--signals '{"approve": {...}}'`: a wait on a listed name gets that payload; any other times out (or fails the step).
      signals: (wait): SignalAnswer => {
        const name = wait.signalNames.find((candidate) => signals && Object.hasOwn(signals, candidate));
        return name ? { name, payload: signals![name] } : undefined;
      },
      onEvent: live ? (event, executionId) => showEvent(io, event, executionId, started) : undefined,
    });
  } catch (error) {
    if (error instanceof DefinitionInvalid) {
      for (const problem of error.errors) io.err(formatError(file, problem));
      return EXIT.failed;
    }
    if (error instanceof InputsInvalid) {
      for (const problem of error.errors) io.err(`--inputs ${problem.path}: ${problem.message}`);
      return EXIT.failed;
    }
    throw error;
  }
  if (options.json) io.out(JSON.stringify(result, null, 2));
  else summarize(io, result, live);
  return result.status === 'completed' ? EXIT.ok : EXIT.failed;
}

/** The live view: one line per step as it settles (and when a wait opens). */
function showEvent(io: Output, event: StepEvent, _executionId: string, started: number): void {
  const at = io.dim(`${String(Date.now() - started).padStart(5)} ms`);
  if (event.type === 'step.completed') io.out(`${at} ${io.green('✓')} ${event.stepId}`);
  else if (event.type === 'step.failed') io.out(`${at} ${io.red('✗')} ${event.stepId}: ${event.record.error?.message ?? 'failed'}`);
  else if (event.type === 'step.skipped') io.out(`${at} ${io.dim(`- ${event.stepId} (skipped)`)}`);
  else if (event.type === 'wait.started') io.out(`${at} ${io.yellow('…')} ${event.stepId} waits on ${event.signalNames.join(' or ')}`);
}

/** The steps (unless the live view showed them), the logs and the outcome of a local run. */
export function summarize(io: Output, result: RunResult, live: boolean): void {
  if (!live) {
    for (const [id, step] of Object.entries(result.steps)) {
      const mark =
        step.status === 'completed'
          ? 'ok  '
          : step.status === 'failed'
            ? 'FAIL'
            : step.status === 'skipped'
              ? 'skip'
              : step.status.slice(0, 4);
      io.out(`${mark} ${id}${step.error ? `: ${step.error.message}` : ''}`);
    }
  }
  for (const log of result.logs) io.out(`${io.dim(`[${log.level}] ${log.stepId}:`)} ${log.message}`);
  if (result.status === 'completed') io.out(`${io.green('completed')} outputs: ${JSON.stringify(result.outputs)}`);
  else
    io.err(
      `${io.red('failed')} ${result.error?.stepId ? `at step "${result.error.stepId}": ` : ''}${result.error?.message} (${result.error?.type})`,
    );
}
