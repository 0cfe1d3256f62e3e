/**
 * Every resource limit an operator may tune: its environment variable, its
 * default and its bounds, in one table. The README's "Limits" section lists
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
  maxStreamsPerOrganization: {
    env: 'EVENTS_MAX_STREAMS_PER_ORGANIZATION',
    default: 50,
    min: 1,
    max: 100_000,
    doc: 'open event streams (SSE) of one organization on one API replica',
  },
  streamIdleSeconds: {
    env: 'EVENTS_STREAM_IDLE_SECONDS',
    default: 900,
    min: 1,
    max: 86_400,
    doc: 'seconds an event stream stays open without an event (the client resumes with Last-Event-ID)',
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
