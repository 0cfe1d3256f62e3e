/** Commands against a running server: publish, execute, logs, signal, config. */
import { readFileSync } from 'node:fs';
import { keyOf } from '../children';
import { loadDefinition } from '../load';
import type { ApiClient } from './client';
import { filesOf, formatError } from './local-commands';
import { CliError, EXIT, type Output } from './output';
import { jsonObject } from './values';
import YAML from 'yaml';

const FINISHED = new Set(['completed', 'failed', 'cancelled', 'terminated', 'timed_out']);
const POLL_MS = 500;

/** GitOps upsert: every file by its key (PUT), then the alias moved to the new revision and activated; stops at the first error. */
export async function publishCommand(
  api: ApiClient,
  targets: string[],
  options: { alias?: string; activate?: boolean },
  io: Output,
): Promise<number> {
  if (targets.length === 0) throw new CliError('publish needs files or folders', EXIT.usage);
  if (options.alias === 'latest') throw new CliError('--alias latest is maintained by the server; name another alias', EXIT.usage);
  for (const target of targets) {
    for (const file of filesOf(target)) {
      // Checked here first, so an error points at the line of the file rather than a pointer into the request.
      const loaded = loadDefinition(file);
      if (loaded.errors.length > 0 || !loaded.definition) {
        for (const error of loaded.errors) io.err(formatError(file, error));
        return EXIT.failed;
      }
      const key = keyOf(loaded.definition, file);
      const document = YAML.parse(readFileSync(file, 'utf8'), { maxAliasCount: 100 }) as Record<string, unknown>;
      let published: Record<string, unknown>;
      try {
        published = (await api.request('put', `/workflows/definitions/${encodeURIComponent(key)}`, { ...document, key })).body;
      } catch (error) {
        if (error instanceof CliError) throw new CliError(`${file}: ${error.message}`, error.exitCode);
        throw error;
      }
      const revision = (published.revision as { revision?: number } | undefined)?.revision;
      io.out(`${io.green(text(published.mode) ?? 'published')} ${key} revision ${revision} (${file})`);
      for (const warning of (published.warnings as Array<{ name?: string; kind?: string }> | undefined) ?? [])
        io.out(`${io.yellow('warn')} ${key}: ${warning.kind} ${warning.name} has no value yet`);
      if (options.alias) {
        await api.request('put', `/workflows/definitions/${encodeURIComponent(key)}/aliases/${encodeURIComponent(options.alias)}`, {
          revision,
        });
        io.out(`  alias ${options.alias} → revision ${revision}`);
      }
      if (options.activate) {
        const alias = options.alias ?? 'latest';
        await api.request('post', `/workflows/definitions/${encodeURIComponent(key)}/aliases/${encodeURIComponent(alias)}/activate`, {});
        io.out(`  alias ${alias} activated`);
      }
    }
  }
  return EXIT.ok;
}

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

interface LogEntry {
  id: string;
  stepId: string;
  level: string;
  message: string;
  timestamp: string;
}

function formatLog(io: Output, entry: LogEntry): string {
  const level = entry.level === 'error' ? io.red(entry.level) : entry.level === 'warn' ? io.yellow(entry.level) : entry.level;
  return `${io.dim(entry.timestamp)} ${level.padEnd(5)} ${entry.stepId}: ${entry.message}`;
}

/** Every log entry, oldest first (the API pages newest window first, backwards). */
async function allLogs(api: ApiClient, executionId: string): Promise<LogEntry[]> {
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
    if (done) {
      if (options.json) io.out(JSON.stringify(execution));
      else if (execution.status === 'completed') io.out(`${io.green('completed')} outputs: ${JSON.stringify(execution.outputs ?? {})}`);
      else io.err(`${io.red(String(execution.status))} ${JSON.stringify(execution.error ?? {})}`);
      return execution.status === 'completed' ? EXIT.ok : EXIT.failed;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}
