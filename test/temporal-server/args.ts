/** Launch arguments of the stand-in executables (Temporal CLI dev server and test server styles). */

export interface Parsed {
  timeSkipping: boolean;
  port: number;
  host: string;
  namespaces: string[];
  /** `--search-attribute Name=Type` (dev server style). */
  searchAttributes?: Array<[string, string]>;
  /** Print the start-up banner (not with `--log-level warn|error`, nor as the test server). */
  quiet?: boolean;
  /** `--poll-timeout <ms>`: how long empty task-queue polls wait (stand-in only; default 60 s). */
  pollTimeoutMs?: number;
}

export function parseArgs(argv: string[]): Parsed {
  const [mode, ...rest] = argv;
  if (mode === 'test') {
    const port = rest.find((arg) => /^\d+$/.test(arg));
    const parsed: Parsed = { timeSkipping: true, port: port ? Number(port) : 7233, host: '127.0.0.1', namespaces: [], quiet: true };
    const pollIndex = rest.indexOf('--poll-timeout');
    if (pollIndex >= 0) parsed.pollTimeoutMs = Number(rest[pollIndex + 1]);
    return parsed;
  }
  const parsed: Parsed = { timeSkipping: false, port: 7233, host: '127.0.0.1', namespaces: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('-')) continue;
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(0, eq) : arg).replace(/^-+/, '');
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < rest.length && !rest[i + 1].startsWith('-')) value = rest[++i];
    if (value === undefined) continue;
    if (name === 'port' || name === 'p') parsed.port = Number(value);
    else if (name === 'ip') parsed.host = value;
    else if (name === 'namespace' || name === 'n') parsed.namespaces.push(value);
    else if (name === 'poll-timeout') parsed.pollTimeoutMs = Number(value);
    else if (name === 'log-level' && /^(warn|error|fatal)$/i.test(value)) parsed.quiet = true;
    else if (name === 'search-attribute' && value.includes('=')) {
      const [attribute, type] = value.split('=');
      (parsed.searchAttributes ??= []).push([attribute, type]);
    }
  }
  return parsed;
}
