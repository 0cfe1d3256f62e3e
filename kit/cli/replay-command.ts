/**
 * `run --from-export FILE`: an execution export replayed locally (kit/replay.ts), its
 * effectful steps answered from the recording, compared with the recorded run; exit 1
 * on the first divergence. `run FILE --stub-from-export EXPORT`: a definition you
 * changed, run against the export's recorded inputs and responses; the differences are
 * shown, and the exit code is the run's.
 */
import { DefinitionInvalid, InputsInvalid } from '../errors';
import { ExportInvalid } from '../export-document';
import { replayExport, type ReplayResult } from '../replay';
import { formatError, summarize } from './local-commands';
import { CliError, EXIT, type Output } from './output';
import { jsonObject } from './values';

export interface ReplayCommandOptions {
  'from-export'?: string;
  'stub-from-export'?: string;
  vars?: string;
  secrets?: string;
  json?: boolean;
}

export async function replayCommand(file: string | undefined, options: ReplayCommandOptions, io: Output): Promise<number> {
  const fromExport = options['from-export'];
  const stubFrom = options['stub-from-export'];
  if (fromExport !== undefined && stubFrom !== undefined)
    throw new CliError(
      '--from-export replays the export as recorded; --stub-from-export runs a file of yours against it: one of them',
      EXIT.usage,
    );
  if (fromExport !== undefined && file !== undefined)
    throw new CliError(
      `--from-export runs the definition recorded in the export; to run ${file} against the export's recorded responses: run ${file} --stub-from-export ${fromExport}`,
      EXIT.usage,
    );
  if (stubFrom !== undefined && file === undefined)
    throw new CliError('--stub-from-export needs the definition file to run: run FILE --stub-from-export EXPORT', EXIT.usage);
  let replay: ReplayResult;
  try {
    replay = await replayExport((fromExport ?? stubFrom) as string, {
      ...(file !== undefined ? { file } : {}),
      vars: jsonObject(options.vars, '--vars'),
      secrets: jsonObject(options.secrets, '--secrets') as Record<string, string> | undefined,
    });
  } catch (error) {
    if (error instanceof ExportInvalid) throw new CliError(error.message, EXIT.usage);
    if (error instanceof DefinitionInvalid) {
      for (const problem of error.errors) io.err(formatError(error.file ?? file ?? fromExport ?? '', problem));
      return EXIT.failed;
    }
    if (error instanceof InputsInvalid) {
      for (const problem of error.errors) io.err(`recorded inputs ${problem.path}: ${problem.message}`);
      return EXIT.failed;
    }
    throw error;
  }
  if (options.json)
    io.out(
      JSON.stringify({ matches: replay.matches, divergences: replay.divergences, recorded: replay.recorded, run: replay.run }, null, 2),
    );
  else report(io, replay, stubFrom !== undefined);
  if (stubFrom !== undefined) return replay.run.status === 'completed' ? EXIT.ok : EXIT.failed;
  return replay.matches ? EXIT.ok : EXIT.failed;
}

function report(io: Output, replay: ReplayResult, changed: boolean): void {
  summarize(io, replay.run, false);
  const { executionId, status } = replay.recorded;
  if (replay.matches) {
    io.out(`${io.green('matches')} the recorded run ${executionId} (${status}): same path, outputs and outcome`);
    return;
  }
  const [first, ...rest] = replay.divergences;
  const say = (line: string) => (changed ? io.out(line) : io.err(line));
  say(`${changed ? io.yellow('differs') : io.red('DIVERGES')} from the recorded run ${executionId} (${status})`);
  say(`  first divergence: ${first.message}`);
  for (const divergence of rest) say(`  then: ${divergence.message}`);
}
