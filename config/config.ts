/**
 * The one place that reads `process.env`. Every other module receives a typed
 * `AppConfig` (or a part of it) from its caller.
 *
 * Parsing is pure: `parseConfig(env)` either returns a config or throws a
 * `ConfigError` naming every invalid variable, so start-up fails with a
 * message an operator can act on.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { readLimits } from './limits';
import { readOidcSettings } from './oidc';
import { CODE_EXEC_DEFAULTS, LOG_FORMATS, LOG_LEVELS, type AppConfig, type LogFormat, type LogLevel } from './app-config';
import { envReader, type Env } from './env-reader';

export {
  CODE_EXEC_DEFAULTS,
  DEFAULT_API_KEY_SETTINGS,
  DEFAULT_CODE_EXEC_THREADS,
  type ApiKeySettings,
  type AppConfig,
  type ClusterSettings,
  type CodeExecSettings,
  type LogFormat,
  type LogLevel,
  type TelemetrySettings,
} from './app-config';

/** The process's name in the audit trail when `REPLICA_ID` is unset. */
export function defaultReplicaId(): string {
  return `${hostname()}:${process.pid}`;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function parseConfig(env: Env, cwd = process.cwd()): AppConfig {
  const problems: string[] = [];
  const { read, integer, boolean, url, hostList, cidrList } = envReader(env, problems);

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
