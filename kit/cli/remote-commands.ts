/** Commands against a running server: execute, logs, signal, config (publish: ./publish-command.ts). */
import type { ApiClient } from './client';
import { CliError, EXIT, type Output } from './output';
import { jsonObject } from './values';

export const FINISHED = new Set(['completed', 'failed', 'cancelled', 'terminated', 'timed_out']);
const POLL_MS = 500;

export async function executeCommand(
  api: ApiClient,
  key: string | undefined,
  options: { inputs?: string; alias?: string; follow?: boolean; json?: boolean },
  io: Output,
): Promise<number> {
  if (!key) throw new CliError('execute needs a workflow key', EXIT.usage);
  const body = { inputs: jsonObject(options.inputs, '--inputs') ?? {}, ...(options.alias ? { alias: options.alias } : {}) };
  const started = (await api.request('post', `/workflows/definitions/${encodeURIComponent(key)}/execute`, body)).body;
  const executionId = String(started.executionId);
  if (!options.follow) {
    io.out(options.json ? JSON.stringify(started) : executionId);
    return EXIT.ok;
  }
  if (!options.json) io.out(io.dim(`execution ${executionId}`));
  return follow(api, executionId, io, { json: options.json });
}

export async function logsCommand(
  api: ApiClient,
  executionId: string | undefined,
  options: { follow?: boolean },
  io: Output,
): Promise<number> {
  if (!executionId) throw new CliError('logs needs an execution id', EXIT.usage);
  if (options.follow) return follow(api, executionId, io, {});
  for (const entry of await allLogs(api, executionId)) io.out(formatLog(io, entry));
  return EXIT.ok;
}

export async function signalCommand(
  api: ApiClient,
  executionId: string | undefined,
  name: string | undefined,
  options: { payload?: string },
  io: Output,
): Promise<number> {
  if (!executionId || !name) throw new CliError('signal needs an execution id and a signal name', EXIT.usage);
  const payload = jsonObject(options.payload, '--payload') ?? {};
  const result = (
    await api.request('post', `/workflows/executions/${encodeURIComponent(executionId)}/signals/${encodeURIComponent(name)}`, payload)
  ).body;
  io.out(`${io.green('delivered')} ${name} (${String(result.signalId)})`);
  return EXIT.ok;
}

export async function configCommand(
  api: ApiClient,
  args: string[],
  options: { secret?: boolean; path?: string; nrn?: string; workflow?: string; ancestors?: boolean },
  io: Output,
): Promise<number> {
  const [action, name, value] = args;
  const place: Record<string, string> = options.workflow ? { workflow: options.workflow } : { path: options.path ?? '/' };
  if (action === 'set') {
    if (!name || value === undefined) throw new CliError('config set needs a name and a value', EXIT.usage);
    // A folder entry's nrn guards it and bounds which workflows use it (default: the organization's).
    const nrn = options.nrn !== undefined ? { nrn: options.nrn } : {};
    const entry = (await api.request('post', '/workflows/config', { name, value, secret: options.secret === true, ...place, ...nrn })).body;
    io.out(`${String(entry.mode)} ${entry.secret ? 'secret' : 'var'} ${name} (${String(entry.id)})`);
    return EXIT.ok;
  }
  if (action === 'list') {
    const query = new URLSearchParams({ ...place, ...(options.ancestors ? { ancestors: 'true' } : {}) });
    const entries = (await api.request<{ data: Array<Record<string, unknown>> }>('get', `/workflows/config?${query.toString()}`)).body.data;
    for (const entry of entries) {
      const where = entry.workflow ? `workflow ${text(entry.workflow)}` : `path ${text(entry.path)} nrn ${text(entry.nrn)}`;
      io.out(`${String(entry.name).padEnd(24)} ${entry.secret ? '(secret)' : JSON.stringify(entry.value)}  ${io.dim(where)}`);
    }
    return EXIT.ok;
  }
  throw new CliError('config takes set <name> <value> [--secret] [--path /folder [--nrn NRN] | --workflow key], or list', EXIT.usage);
}

export interface LogEntry {
  id: string;
  stepId: string;
  level: string;
  message: string;
  timestamp: string;
}

export function formatLog(io: Output, entry: LogEntry): string {
  const level = entry.level === 'error' ? io.red(entry.level) : entry.level === 'warn' ? io.yellow(entry.level) : entry.level;
  return `${io.dim(entry.timestamp)} ${level.padEnd(5)} ${entry.stepId}: ${entry.message}`;
}

/** Every log entry, oldest first (the API pages newest window first, backwards). */
export async function allLogs(api: ApiClient, executionId: string): Promise<LogEntry[]> {
  const windows: LogEntry[][] = [];
  let cursor: number | undefined;
  do {
    const query = `limit=1000${cursor !== undefined ? `&cursor=${cursor}` : ''}`;
    const page = (
      await api.request<{ data: LogEntry[]; nextCursor?: number }>(
        'get',
        `/workflows/executions/${encodeURIComponent(executionId)}/logs?${query}`,
      )
    ).body;
    windows.unshift(page.data);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return windows.flat();
}

/** Prints log entries as they come until the execution ends; exit 1 when it did not complete. */
async function follow(api: ApiClient, executionId: string, io: Output, options: { json?: boolean }): Promise<number> {
  const printed = new Set<string>();
  for (;;) {
    const execution = (await api.request('get', `/workflows/executions/${encodeURIComponent(executionId)}`)).body;
    const done = FINISHED.has(String(execution.status));
    if (!options.json) {
      for (const entry of await allLogs(api, executionId)) {
        if (printed.has(entry.id)) continue;
        printed.add(entry.id);
        io.out(formatLog(io, entry));
      }
    }
    if (done) return printEnd(io, execution, options);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The last line of an ended execution (or the execution as JSON); exit 1 unless it completed. */
export function printEnd(io: Output, execution: Record<string, unknown>, options: { json?: boolean }): number {
  if (options.json) io.out(JSON.stringify(execution));
  else if (execution.status === 'completed') io.out(`${io.green('completed')} outputs: ${JSON.stringify(execution.outputs ?? {})}`);
  else io.err(`${io.red(String(execution.status))} ${JSON.stringify(execution.error ?? {})}`);
  return execution.status === 'completed' ? EXIT.ok : EXIT.failed;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}
