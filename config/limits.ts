/**
 * Every resource limit an operator may tune: its environment variable, its
 * default and its bounds, in one table. docs/limits.md lists
 * the same table; the parts of the system that enforce a limit receive this
 * object (or the slice they need) and name the variable in their error.
 */
export const LIMIT_SETTINGS = {
  maxSteps: { env: 'WORKFLOW_MAX_STEPS', default: 1000, min: 1, max: 100_000, doc: 'steps in one definition' },
  maxConnections: { env: 'WORKFLOW_MAX_CONNECTIONS', default: 5000, min: 1, max: 500_000, doc: 'connections in one definition' },
  maxDefinitionBytes: {
    env: 'WORKFLOW_MAX_DEFINITION_BYTES',
    default: 1024 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
    doc: 'size of one definition, as JSON',
  },
  maxExpressionLength: {
    env: 'WORKFLOW_MAX_EXPRESSION_LENGTH',
    default: 4096,
    min: 16,
    max: 1024 * 1024,
    doc: 'characters in one `${{ }}` expression or raw condition',
  },
  minCronIntervalSeconds: {
    env: 'WORKFLOW_MIN_CRON_INTERVAL_SECONDS',
    default: 60,
    min: 1,
    max: 86_400,
    doc: 'shortest interval a cron trigger may fire at',
  },
  maxSubWorkflowDepth: { env: 'WORKFLOW_MAX_SUBWORKFLOW_DEPTH', default: 10, min: 1, max: 1000, doc: 'nesting of sub-workflows' },
  maxChildrenPerExecution: {
    env: 'WORKFLOW_MAX_CHILDREN_PER_EXECUTION',
    default: 100,
    min: 1,
    max: 100_000,
    doc: 'sub-workflows one execution may start',
  },
  maxExecutionsPerTree: {
    env: 'WORKFLOW_MAX_EXECUTIONS_PER_TREE',
    default: 1000,
    min: 1,
    max: 1_000_000,
    doc: 'sub-workflow executions one root execution may cause, at every depth together (the tree budget)',
  },
  maxForEachElements: {
    env: 'WORKFLOW_MAX_FOREACH_ELEMENTS',
    default: 10_000,
    min: 1,
    max: 1_000_000,
    doc: 'elements one forEach may iterate',
  },
  maxParallelism: { env: 'WORKFLOW_MAX_PARALLELISM', default: 50, min: 1, max: 10_000, doc: 'ceiling on maxConcurrency / maxParallelism' },
  maxActivitiesInFlight: {
    env: 'WORKFLOW_MAX_ACTIVITIES_IN_FLIGHT',
    default: 20,
    min: 1,
    max: 10_000,
    doc: 'plugin activities one execution runs at the same time',
  },
  maxLogMessageBytes: {
    env: 'WORKFLOW_MAX_LOG_MESSAGE_BYTES',
    default: 16 * 1024,
    min: 256,
    max: 1024 * 1024,
    doc: 'bytes of one log message kept (longer ones are cut)',
  },
  maxStepOutputBytes: {
    env: 'WORKFLOW_MAX_STEP_OUTPUT_BYTES',
    default: 1024 * 1024,
    min: 1024,
    max: 1536 * 1024,
    doc: "bytes of one step's output as JSON (Temporal refuses payloads over 2 MB)",
  },
  lightStepMaxTimeoutMs: {
    env: 'LIGHT_STEP_MAX_TIMEOUT_MS',
    default: 30_000,
    min: 0,
    max: 60_000,
    doc: "an http-request or paginated-fetch step whose timeout (without one: an http-request's own call timeout, default 30 s) is at most this runs as a light step (a local activity); 0: none does",
  },
  maxPages: { env: 'WORKFLOW_MAX_PAGES', default: 1000, min: 1, max: 100_000, doc: 'ceiling on paginated-fetch maxPages' },
  maxActionMessages: {
    env: 'ACTION_MAX_MESSAGES',
    default: 1000,
    min: 1,
    max: 100_000,
    doc: 'messages one service action may hold (each update appends)',
  },
  webhookRequestsPerMinute: {
    env: 'WEBHOOK_REQUESTS_PER_MINUTE',
    default: 600,
    min: 1,
    max: 1_000_000,
    doc: 'anonymous requests one webhook (or callback) token may make per minute, per API replica',
  },
  webhookBurst: {
    env: 'WEBHOOK_BURST',
    default: 60,
    min: 1,
    max: 100_000,
    doc: 'requests one webhook token may make at once before the per-minute rate applies',
  },
  signalIdempotencySeconds: {
    env: 'SIGNAL_IDEMPOTENCY_SECONDS',
    default: 86_400,
    min: 60,
    max: 30 * 86_400,
    doc: 'seconds a signal delivery idempotencyKey is remembered (a repeat within them delivers nothing)',
  },
  maxBodyDepth: {
    env: 'BODY_MAX_DEPTH',
    default: 64,
    min: 8,
    max: 1000,
    doc: 'levels of nesting in a request body (objects and arrays; a user JSON Schema, at most 24 levels, fits inside any body with room to spare)',
  },
  maxStreamsPerOrganization: {
    env: 'EVENTS_MAX_STREAMS_PER_ORGANIZATION',
    default: 50,
    min: 1,
    max: 100_000,
    doc: 'open event streams (SSE) of one organization on one API replica',
  },
  maxStreamsPerUser: {
    env: 'EVENTS_MAX_STREAMS_PER_USER',
    default: 10,
    min: 1,
    max: 100_000,
    doc: "open event streams (SSE) of one user on one API replica, within its organization's share",
  },
  streamAccessCheckSeconds: {
    env: 'EVENTS_ACCESS_CHECK_SECONDS',
    default: 5,
    min: 1,
    max: 300,
    doc: "seconds between re-checks of an open event stream against its caller's grants (a revoked stream ends within them)",
  },
  streamIdleSeconds: {
    env: 'EVENTS_STREAM_IDLE_SECONDS',
    default: 900,
    min: 1,
    max: 86_400,
    doc: 'seconds an event stream stays open without an event (the client resumes with Last-Event-ID)',
  },
  executionWaitMaxSeconds: {
    env: 'EXECUTION_WAIT_MAX_SECONDS',
    default: 60,
    min: 1,
    max: 900,
    doc: 'longest `wait` a read of one execution may ask for (GET /workflows/executions/{id}?wait=30s holds the request until the execution ends or the time passes)',
  },
  executionRetentionDays: {
    env: 'EXECUTION_RETENTION_DAYS',
    default: 30,
    min: 0,
    max: 3650,
    doc: 'days an ended execution (with its steps, logs, events and waits) is kept after it ended, unless its organization or workflow sets its own; 0: kept forever',
  },
  retentionSweepIntervalSeconds: {
    env: 'RETENTION_SWEEP_INTERVAL_SECONDS',
    default: 60,
    min: 1,
    max: 86_400,
    doc: 'seconds between two retention sweeps of one API replica',
  },
  retentionSweepBatch: {
    env: 'RETENTION_SWEEP_BATCH',
    default: 500,
    min: 1,
    max: 100_000,
    doc: 'executions one retention batch removes, in one short transaction (a sweep runs batches until one comes back short)',
  },
} as const;

export type LimitName = keyof typeof LIMIT_SETTINGS;
export type Limits = Record<LimitName, number>;

export const DEFAULT_LIMITS: Limits = Object.fromEntries(
  Object.entries(LIMIT_SETTINGS).map(([name, setting]) => [name, setting.default]),
) as Limits;

/** The limits from the environment; a malformed or out-of-range value is a problem naming its variable. */
export function readLimits(integer: (name: string, fallback: number, min: number, max: number) => number): Limits {
  return Object.fromEntries(
    Object.entries(LIMIT_SETTINGS).map(([name, setting]) => [name, integer(setting.env, setting.default, setting.min, setting.max)]),
  ) as Limits;
}
