/**
 * The service's configuration as its modules receive it: `AppConfig` and its parts (API keys, code-exec,
 * the cluster, telemetry), with the defaults other modules share. Read from the environment by ./config.ts
 * only.
 */
import { availableParallelism } from 'node:os';
import type { Limits } from './limits';
import type { OidcSettings } from './oidc';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** `auto`: readable lines on a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
export type LogFormat = 'auto' | 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

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

export interface ApiKeySettings {
  /** `API_KEY_DEFAULT_DAYS` (default 90). */
  defaultDays: number;
  /** `API_KEY_MAX_DAYS` (default 365). */
  maxDays: number;
  /** `API_KEY_TOKEN_TTL_SECONDS` (default 900): how long a token from POST /token works. */
  tokenTtlSeconds: number;
}

export const DEFAULT_API_KEY_SETTINGS: ApiKeySettings = { defaultDays: 90, maxDays: 365, tokenTtlSeconds: 900 };
