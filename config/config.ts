/**
 * The one place that reads `process.env`. Every other module receives a typed
 * `AppConfig` (or a part of it) from its caller.
 *
 * Parsing is pure: `parseConfig(env)` either returns a config or throws a
 * `ConfigError` naming every invalid variable, so start-up fails with a
 * message an operator can act on.
 */
import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { parseCidr } from './cidr';
import { readLimits, type Limits } from './limits';
import { readOidcSettings, type OidcSettings } from './oidc';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** `auto`: readable lines on a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
export type LogFormat = 'auto' | 'json' | 'pretty';
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

export interface AppConfig {
  port: number;
  host: string;
  /** Base URL clients use to reach this service (webhook URLs are built from it). No trailing slash. */
  publicBaseUrl: string;
  /** Unset: an embedded PostgreSQL is started under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /** Apply pending migrations at start-up (`MIGRATE_ON_START`, default true). */
  migrateOnStart: boolean;
  /** Unset: a local Temporal is resolved (Temporal CLI dev server, else the in-memory stand-in). */
  temporalAddress?: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  /** Path of a Temporal CLI binary used for the local dev server. */
  temporalCliPath?: string;
  /** Which local Temporal to start without TEMPORAL_ADDRESS (`TEMPORAL_SERVER`: auto, cli or stand-in; default auto). */
  temporalServer: 'auto' | 'cli' | 'stand-in';
  /** Port of the local CLI dev server's Web UI (`TEMPORAL_UI_PORT`, default 8233). */
  temporalUiPort: number;
  /** Temporal Web UI base URL, used to build links to executions. Unset: the local dev server's UI, when one runs. */
  temporalUiUrl?: string;
  /**
   * Days Temporal keeps a closed run's history in the namespace (`TEMPORAL_RETENTION_DAYS`; default: the execution
   * retention, 30 days when that keeps executions forever; at least 1, as Temporal requires). Set on the namespace at
   * start-up; 0 leaves the namespace's retention as it is.
   */
  temporalRetentionDays: number;
  /** HS256 key. Unset together with `authJwksUrl`: a development key is generated under `dataDir`. */
  authJwtSecret?: string;
  /** When set, tokens are RS256 verified against this JWKS (and HS256 is off). */
  authJwksUrl?: string;
  /** When set, a token's `aud` must name it (`AUTH_JWT_AUDIENCE`). */
  authJwtAudience?: string;
  /** When set, a token's `iss` must equal it (`AUTH_JWT_ISSUER`). */
  authJwtIssuer?: string;
  /** Console sign-in through an OpenID Connect issuer (`OIDC_*`, config/oidc.ts); unset: off. */
  oidc?: OidcSettings;
  /** HS256 key of the tokens the service mints itself (`AUTH_SERVICE_KEY`). Unset: derived from the config encryption key. */
  authServiceKey?: string;
  /** API keys: days a key lives when its creator names no expiry, the most it may live, and the life of a token it is exchanged for. */
  apiKeys: ApiKeySettings;
  /** 32-byte key (base64 or hex) for AES-256-GCM of secret config values. Unset: development key. */
  configEncryptionKey?: string;
  logLevel: LogLevel;
  /** How log lines are written (`LOG_FORMAT`: auto, json or pretty; default auto). */
  logFormat: LogFormat;
  /** Request body limit in bytes (`BODY_LIMIT_BYTES`, default 1 MB). */
  bodyLimitBytes: number;
  /** Grace time for in-flight work on shutdown (`SHUTDOWN_GRACE_MS`, default 10 s). */
  shutdownGraceMs: number;
  /** `user:organization` pairs granted the admin role at start-up. */
  bootstrapAdmins: Array<{ userId: string; organizationId: string }>;
  /** Hosts plugins may call (`EGRESS_ALLOW_HOSTS`, default `*`) unless denied (`EGRESS_DENY_HOSTS`, default: cloud metadata endpoints). */
  egressAllowHosts?: string[];
  egressDenyHosts?: string[];
  /** Address ranges plugins may reach although they are private, loopback or link-local (`EGRESS_ALLOW_CIDRS`, default none). */
  egressAllowCidrs: string[];
  /** Resource limits (config/limits.ts lists each variable and default). */
  limits: Limits;
  /** code-exec's thread pool and the caps every run is held to (`CODE_EXEC_*`). */
  codeExec: CodeExecSettings;
  /** Operators' own plugins (`PLUGINS`: comma-separated package names or paths, loaded at start by the API and the worker). */
  plugins: string[];
  /** The production shape on one machine (`npm run start:cluster`). */
  cluster: ClusterSettings;
  /** Traces and the Temporal SDK's metrics (docs/operations.md, "Traces and metrics"). */
  telemetry: TelemetrySettings;
  /** This process's name in the audit trail (`REPLICA_ID`, default `<hostname>:<pid>`). */
  replicaId: string;
  /** Proxies whose `X-Forwarded-For` names the client in the audit trail (`TRUSTED_PROXIES`: addresses or CIDR ranges; default none). */
  trustedProxies: string[];
  /** Days an audit event is kept (`AUDIT_RETENTION_DAYS`, default 365). */
  auditRetentionDays: number;
}

/** Traces over OTLP (off unless an endpoint is set) and where the worker's Temporal SDK metrics are served. */
export interface TelemetrySettings {
  /** OTLP/HTTP base URL spans go to, `/v1/traces` appended (`OTEL_EXPORTER_OTLP_ENDPOINT`; unset: tracing off, nothing of OpenTelemetry loaded). */
  otlpEndpoint?: string;
  /** `service.name` on every span (`OTEL_SERVICE_NAME`, default platform-api). */
  serviceName: string;
  /**
   * Port of the worker's Temporal SDK metrics, served at `HOST:port/metrics` (`WORKER_METRICS_PORT`). Unset: a
   * free loopback port that only this process's API `/metrics` reads (a worker without an API serves none).
   */
  workerMetricsPort?: number;
  /**
   * Stack traces inside workflow runs (`WORKFLOW_STACK_TRACES`, default false): with them the Temporal UI's "Stack
   * Trace" tab shows where a run's code waits, at the cost of a captured and source-mapped stack for every promise
   * a run creates (a third of the workflow thread's CPU; workflows/no-stack-traces.ts).
   */
  workflowStackTraces: boolean;
}

/** The process's name in the audit trail when `REPLICA_ID` is unset. */
export function defaultReplicaId(): string {
  return `${hostname()}:${process.pid}`;
}

/** `npm run start:cluster`: how many of each process, and the Temporal server's port. */
export interface ClusterSettings {
  /** API processes behind the front (`API_REPLICAS`, default 2). */
  apiReplicas: number;
  /** Worker processes (`WORKERS`, default 3). */
  workers: number;
  /** The Temporal server's frontend port (`TEMPORAL_PORT`, default 7233; its other ports sit around it). */
  temporalPort: number;
}

/** How code-exec runs: threads off the event loop, and what one run may produce. */
export interface CodeExecSettings {
  /** Worker threads running scripts (`CODE_EXEC_THREADS`); a busy script occupies one until its deadline. */
  threads: number;
  /**
   * Threads one organization's scripts may hold at once (`CODE_EXEC_THREADS_PER_ORGANIZATION`;
   * unset: half of `threads`, rounded up), so another organization's script always finds one.
   */
  threadsPerOrganization?: number;
  /** Scripts of one organization that may wait for a thread (`CODE_EXEC_QUEUE_PER_ORGANIZATION`); more fail `SANDBOX_BUSY`. */
  queuePerOrganization: number;
  /** Log lines one run may write (`CODE_EXEC_MAX_LOG_LINES`). */
  maxLogLines: number;
  /** UTF-8 bytes of log messages one run may write (`CODE_EXEC_MAX_LOG_BYTES`). */
  maxLogBytes: number;
  /** UTF-8 bytes of the JSON of the returned value (`CODE_EXEC_MAX_RESULT_BYTES`). */
  maxResultBytes: number;
  /** Bytes of one `fetch` response body inside the sandbox (`CODE_EXEC_MAX_FETCH_BYTES`). */
  maxFetchBodyBytes: number;
}

/**
 * One thread fewer than the CPUs leaves a core for the event loop (API and
 * Temporal worker); at least two, so one busy script does not queue every
 * other code-exec step behind it.
 */
export const DEFAULT_CODE_EXEC_THREADS = Math.max(2, availableParallelism() - 1);

/**
 * Log and result caps keep one run's output well inside Temporal's 2 MB
 * payload limit (logs and result travel back in the activity result).
 */
export const CODE_EXEC_DEFAULTS: CodeExecSettings = {
  threads: DEFAULT_CODE_EXEC_THREADS,
  // Half of Temporal's default 100 activity slots per worker: one organization's waiting scripts leave the rest to others.
  queuePerOrganization: 50,
  maxLogLines: 1000,
  maxLogBytes: 256 * 1024,
  maxResultBytes: 1024 * 1024,
  maxFetchBodyBytes: 5 * 1024 * 1024,
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export interface ApiKeySettings {
  /** `API_KEY_DEFAULT_DAYS` (default 90). */
  defaultDays: number;
  /** `API_KEY_MAX_DAYS` (default 365). */
  maxDays: number;
  /** `API_KEY_TOKEN_TTL_SECONDS` (default 900): how long a token from POST /token works. */
  tokenTtlSeconds: number;
}

export const DEFAULT_API_KEY_SETTINGS: ApiKeySettings = { defaultDays: 90, maxDays: 365, tokenTtlSeconds: 900 };

export function parseConfig(env: Env, cwd = process.cwd()): AppConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${raw}")`);
      return undefined;
    }
  };

  const port = integer('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const publicBaseUrl = url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const dataDir = path.resolve(cwd, read('DATA_DIR') ?? '.data');

  const temporalAddress = read('TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined && !/^[^\s:/]+:\d{1,5}$/.test(temporalAddress)) {
    problems.push(`TEMPORAL_ADDRESS must be host:port (got "${temporalAddress}")`);
  }
  const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
  const temporalNamespace = read('TEMPORAL_NAMESPACE') ?? 'default';
  if (!namePattern.test(temporalNamespace)) problems.push(`TEMPORAL_NAMESPACE is not a valid namespace name (got "${temporalNamespace}")`);
  const temporalTaskQueue = read('TEMPORAL_TASK_QUEUE') ?? 'platform-workflows';
  if (!namePattern.test(temporalTaskQueue))
    problems.push(`TEMPORAL_TASK_QUEUE is not a valid task queue name (got "${temporalTaskQueue}")`);

  const temporalServer = (read('TEMPORAL_SERVER') ?? 'auto').toLowerCase() as AppConfig['temporalServer'];
  if (!['auto', 'cli', 'stand-in'].includes(temporalServer))
    problems.push(`TEMPORAL_SERVER must be auto, cli or stand-in (got "${temporalServer}")`);

  const authJwtSecret = read('AUTH_JWT_SECRET');
  if (authJwtSecret !== undefined && Buffer.byteLength(authJwtSecret) < 32) {
    problems.push('AUTH_JWT_SECRET must be at least 32 bytes long (HS256 needs a 256-bit key)');
  }
  const authJwksUrl = url('AUTH_JWKS_URL', ['http:', 'https:']);
  const authServiceKey = read('AUTH_SERVICE_KEY');
  if (authServiceKey !== undefined && Buffer.byteLength(authServiceKey) < 32) {
    problems.push('AUTH_SERVICE_KEY must be at least 32 bytes long (HS256 needs a 256-bit key)');
  }

  const configEncryptionKey = read('CONFIG_ENCRYPTION_KEY');
  if (configEncryptionKey !== undefined && decodeEncryptionKey(configEncryptionKey) === undefined) {
    problems.push('CONFIG_ENCRYPTION_KEY must be 32 bytes, written as 64 hex characters or base64');
  }

  const logLevel = (read('LOG_LEVEL') ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  const logFormat = (read('LOG_FORMAT') ?? 'auto').toLowerCase() as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) problems.push(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got "${logFormat}")`);

  const bootstrapAdmins: AppConfig['bootstrapAdmins'] = [];
  for (const pair of (read('BOOTSTRAP_ADMINS') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    // Ids stay strings, spelled as tokens spell them (no leading zeros): numbers would round above 2^53.
    const match = /^([1-9]\d{0,17}):([1-9]\d{0,17})$/.exec(pair);
    if (!match) problems.push(`BOOTSTRAP_ADMINS entries must be user:organization pairs of positive integers (got "${pair}")`);
    else bootstrapAdmins.push({ userId: match[1], organizationId: match[2] });
  }

  const hostList = (name: string): string[] | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    const hosts = raw
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (const host of hosts)
      if (!/^(\*|(\*\.)?[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\])$/.test(host)) problems.push(`${name} has an invalid host pattern "${host}"`);
    return hosts;
  };

  /** A comma-separated list of address ranges (CIDR, or one address), each checked. */
  const cidrList = (name: string): string[] => {
    const ranges = (read(name) ?? '')
      .split(',')
      .map((range) => range.trim())
      .filter(Boolean);
    for (const range of ranges) {
      try {
        parseCidr(range);
      } catch (error) {
        problems.push(`${name}: ${(error as Error).message}`);
      }
    }
    return ranges;
  };
  const egressAllowCidrs = cidrList('EGRESS_ALLOW_CIDRS');
  const trustedProxies = cidrList('TRUSTED_PROXIES');

  const plugins = (read('PLUGINS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of plugins)
    if (/\s/.test(entry)) problems.push(`PLUGINS entries are package names or paths without spaces (got "${entry}")`);

  const limits = readLimits(integer);
  const codeExecThreads = integer('CODE_EXEC_THREADS', CODE_EXEC_DEFAULTS.threads, 1, 256);
  const config: AppConfig = {
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    dataDir,
    migrateOnStart: boolean('MIGRATE_ON_START', true),
    temporalAddress,
    temporalNamespace,
    temporalTaskQueue,
    temporalCliPath: read('TEMPORAL_CLI_PATH'),
    temporalServer,
    temporalUiPort: integer('TEMPORAL_UI_PORT', 8233, 1, 65535),
    temporalUiUrl: url('TEMPORAL_UI_URL', ['http:', 'https:']),
    temporalRetentionDays: integer('TEMPORAL_RETENTION_DAYS', defaultTemporalRetentionDays(limits.executionRetentionDays), 0, 3650),
    authJwtSecret,
    authJwksUrl,
    authJwtAudience: read('AUTH_JWT_AUDIENCE'),
    authJwtIssuer: read('AUTH_JWT_ISSUER'),
    oidc: readOidcSettings(read, publicBaseUrl, problems),
    authServiceKey,
    apiKeys: {
      defaultDays: integer('API_KEY_DEFAULT_DAYS', 90, 1, 3650),
      maxDays: integer('API_KEY_MAX_DAYS', 365, 1, 3650),
      tokenTtlSeconds: integer('API_KEY_TOKEN_TTL_SECONDS', 900, 60, 3600),
    },
    configEncryptionKey,
    logLevel,
    logFormat,
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 10_000, 0, 10 * 60_000),
    bootstrapAdmins,
    egressAllowHosts: hostList('EGRESS_ALLOW_HOSTS'),
    egressDenyHosts: hostList('EGRESS_DENY_HOSTS'),
    egressAllowCidrs,
    limits,
    codeExec: {
      threads: codeExecThreads,
      threadsPerOrganization: integer('CODE_EXEC_THREADS_PER_ORGANIZATION', Math.ceil(codeExecThreads / 2), 1, 256),
      queuePerOrganization: integer('CODE_EXEC_QUEUE_PER_ORGANIZATION', CODE_EXEC_DEFAULTS.queuePerOrganization, 1, 100_000),
      maxLogLines: integer('CODE_EXEC_MAX_LOG_LINES', CODE_EXEC_DEFAULTS.maxLogLines, 1, 1_000_000),
      maxLogBytes: integer('CODE_EXEC_MAX_LOG_BYTES', CODE_EXEC_DEFAULTS.maxLogBytes, 1024, 64 * 1024 * 1024),
      maxResultBytes: integer('CODE_EXEC_MAX_RESULT_BYTES', CODE_EXEC_DEFAULTS.maxResultBytes, 1024, 64 * 1024 * 1024),
      maxFetchBodyBytes: integer('CODE_EXEC_MAX_FETCH_BYTES', CODE_EXEC_DEFAULTS.maxFetchBodyBytes, 1024, 256 * 1024 * 1024),
    },
    plugins,
    cluster: {
      apiReplicas: integer('API_REPLICAS', 2, 1, 16),
      workers: integer('WORKERS', 3, 1, 32),
      temporalPort: integer('TEMPORAL_PORT', 7233, 1300, 32000),
    },
    telemetry: {
      otlpEndpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
      serviceName: read('OTEL_SERVICE_NAME') ?? 'platform-api',
      workerMetricsPort: read('WORKER_METRICS_PORT') === undefined ? undefined : integer('WORKER_METRICS_PORT', 0, 1, 65535),
      workflowStackTraces: boolean('WORKFLOW_STACK_TRACES', false),
    },
    replicaId: read('REPLICA_ID') ?? defaultReplicaId(),
    trustedProxies,
    auditRetentionDays: integer('AUDIT_RETENTION_DAYS', 365, 1, 36_500),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Temporal keeps history as long as we keep executions (at least its minimum of 1 day); 30 days when executions are kept forever. */
export function defaultTemporalRetentionDays(executionRetentionDays: number): number {
  return executionRetentionDays === 0 ? 30 : executionRetentionDays;
}

/** A 32-byte key from 64 hex characters or base64; undefined when it is neither. */
export function decodeEncryptionKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const key = Buffer.from(value, 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}

/** Reads the process environment. With {@link childProcessEnvironment}, the only reader of `process.env` in the project. */
export function loadConfig(): AppConfig {
  return parseConfig(process.env);
}

/** A copy of this process's environment, handed on to the processes it starts (which read their configuration from it). */
export function childProcessEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}
