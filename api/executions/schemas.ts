/** Parameter and response schemas of the execution routes (they feed OpenAPI). */
import { Type } from '@sinclair/typebox';
import { Paging } from '../workflows/schemas';
import { Debounced, FlowControlState } from './flow-schemas';

const Json = Type.Record(Type.String(), Type.Unknown());
const DateTime = Type.String({ format: 'date-time' });

/** `queued`: held by flow control (executions/flow/) with no Temporal workflow yet. */
export const EXECUTION_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'] as const;
/** The statuses the stats count (a queued run is counted once it runs). */
export const COUNTED_STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'] as const;
export const ExecutionStatus = Type.Union(EXECUTION_STATUSES.map((status) => Type.Literal(status)));

export const ExecutionRef = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: 'Execution id (exec_…)' }) });
/** The query of GET /workflows/executions/{id}; wait-parameter.ts reads `wait` (its grammar is the step timeouts'). */
export const ExecutionReadQuery = Type.Object({
  wait: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description:
        "Hold the request while the execution runs (until it ends or waits on a signal) or until this time passes, then answer as without it: a duration as step timeouts write it (`500ms`, `30s`, `2m`, `PT30S`) or a plain number of seconds, at most EXECUTION_WAIT_MAX_SECONDS (60 s by default). Takes one of the caller's event-stream slots while it waits (429 `too-many-streams` when they are all held).",
      examples: ['30s'],
    }),
  ),
});
export const StepParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  stepId: Type.String({ minLength: 1, maxLength: 128 }),
});
export const SignalParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
});

export const RevisionChoice = {
  alias: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  revision: Type.Optional(Type.Integer({ minimum: 1 })),
};

export const ExecuteBody = Type.Object(
  {
    inputs: Type.Optional(Json),
    ...RevisionChoice,
    correlationKey: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    triggerId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The trigger step to fire. Default: the manual trigger, else the only trigger (a run now: a cron trigger gets the payload a tick would, a webhook trigger a request with these inputs as body); required when there are several others.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ExecuteResult = Type.Object({
  executionId: Type.String(),
  workflowId: Type.String(),
  revision: Type.Integer(),
  alias: Type.Union([Type.String(), Type.Null()]),
  status: ExecutionStatus,
  deduplicated: Type.Optional(Type.Boolean()),
  debounced: Type.Optional(Debounced),
});

export const Execution = Type.Object({
  id: Type.String(),
  workflowId: Type.String(),
  workflowKey: Type.Optional(Type.String()),
  revision: Type.Integer(),
  alias: Type.Optional(Type.String()),
  status: ExecutionStatus,
  inputs: Json,
  outputs: Type.Optional(Json),
  error: Type.Optional(Json),
  trigger: Json,
  correlationKey: Type.Optional(Type.String()),
  idempotencyKey: Type.Optional(Type.String()),
  parentExecutionId: Type.Optional(Type.String()),
  createdBy: Type.Optional(Type.String()),
  rerunOf: Type.Optional(Type.String({ description: 'the execution this one runs again (POST …/rerun or …/retry)' })),
  rerunKind: Type.Optional(
    Type.Union([Type.Literal('rerun'), Type.Literal('retry')], {
      description: 'rerun: every step ran again; retry: the steps that completed in rerunOf were reused',
    }),
  ),
  createdAt: DateTime,
  updatedAt: DateTime,
  completedAt: Type.Optional(DateTime),
  flowControl: Type.Optional(FlowControlState),
  health: Type.Optional(
    Type.Object(
      {
        workflowTaskFailing: Type.Literal(true),
        attempts: Type.Integer({ description: 'attempts of the failing workflow task so far' }),
        since: DateTime,
        message: Type.String({ description: 'the failure Temporal recorded' }),
        cause: Type.Optional(
          Type.String({ description: "Temporal's cause, e.g. WORKFLOW_WORKER_UNHANDLED_FAILURE, NON_DETERMINISTIC_ERROR" }),
        ),
        checkedAt: DateTime,
      },
      {
        description:
          'Present while the execution is open and its workflow task keeps failing, as the open-runs sweep last saw it in Temporal: the run makes no progress until the cause is fixed (terminate it, or fix and redeploy the worker).',
      },
    ),
  ),
  temporal: Type.Object({
    workflowId: Type.String(),
    runId: Type.Optional(Type.String()),
    namespace: Type.String(),
    uiUrl: Type.Optional(Type.String()),
    historyAvailable: Type.Optional(
      Type.Literal(false, { description: "present when Temporal's retention has deleted the run's history (then no uiUrl)" }),
    ),
    reason: Type.Optional(Type.String({ description: 'why the history is not available' })),
  }),
});

export const ExecutionQuery = Type.Object({
  workflowId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Workflow id (wf_…) or key' })),
  alias: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  status: Type.Optional(ExecutionStatus),
  correlationKey: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  rerunOf: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'only the re-runs and retries of this execution' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
  ...Paging,
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'nextCursor of the previous page (with the same filters): the next page, however deep, instead of `page`',
    }),
  ),
});

/** `total` counts matching executions up to this many (or up to the requested page's end, when deeper). */
export const EXECUTION_COUNT_CAP = 1_000;

export const ExecutionPage = Type.Object({
  data: Type.Array(Execution),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: `matching executions, counted up to ${EXECUTION_COUNT_CAP} (see totalCapped)` }),
  totalCapped: Type.Boolean({ description: 'true: more executions match than total says (the count stopped there)' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last page' }),
});

export const PendingWait = Type.Object({
  waitId: Type.String(),
  stepId: Type.String(),
  signalNames: Type.Array(Type.String()),
  correlationKey: Type.Optional(Type.String()),
  since: DateTime,
  timeoutAt: Type.Optional(DateTime),
  callbackUrl: Type.Optional(Type.String({ description: 'webhook-wait steps: the one-time URL that releases the wait' })),
});

export const ExecutionState = Type.Object({
  status: ExecutionStatus,
  steps: Type.Record(Type.String(), Json),
  variables: Json,
  currentSteps: Type.Array(Type.String()),
  pendingWaits: Type.Array(PendingWait),
  live: Type.Boolean({ description: 'true while the execution runs (the state may still change), false once it has ended' }),
});

export const ReasonBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false });

export const SignalPayload = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'Arbitrary JSON object, passed verbatim as the signal payload',
});
export const SignalResult = Type.Object({
  delivered: Type.Literal(true),
  signalId: Type.String(),
  deduplicated: Type.Optional(Type.Literal(true)),
  // An answer to a declared-answer wait (issue 42): whether it released the wait, and the approvals counted of those required.
  released: Type.Optional(Type.Boolean()),
  approvals: Type.Optional(Type.Integer()),
  required: Type.Optional(Type.Integer()),
});
const SignalIdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'A repeat with the same key (per organization) delivers nothing and answers as the first delivery did',
});
export const SignalQuery = Type.Object({ idempotencyKey: Type.Optional(SignalIdempotencyKey) });
export const CorrelatedSignalBody = Type.Object(
  {
    correlationKey: Type.String({ minLength: 1, maxLength: 500 }),
    payload: Type.Optional(Type.Unknown()),
    workflowId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    idempotencyKey: Type.Optional(SignalIdempotencyKey),
    startIfNotWaiting: Type.Optional(
      Type.Boolean({
        description:
          'Signal-with-start: when no execution waits, start one of `workflowId` (required then) with `inputs` and this correlation key; its first wait on this signal name and key receives the payload. Default: start when `workflowId` is given (as the compatible engine does); false: answer 409 instead.',
      }),
    ),
    inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Inputs of the execution a start creates' })),
    alias: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Alias a start runs (default latest)' })),
  },
  { additionalProperties: false },
);
export const CorrelatedSignalResult = Type.Object({
  delivered: Type.Literal(true),
  signalId: Type.String(),
  executionId: Type.String(),
  started: Type.Boolean({ description: 'true when the delivery started the execution (signal-with-start)' }),
  deduplicated: Type.Optional(Type.Literal(true)),
});

export const LogQuery = Type.Object({
  // Values above 1000 are clamped by the handler, not rejected (contract).
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 200 })),
  cursor: Type.Optional(Type.Integer({ minimum: 0, description: 'exclusive end index of the window' })),
  stepId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const LogEntry = Type.Object({
  id: Type.String(),
  executionId: Type.String(),
  stepId: Type.String(),
  level: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
  message: Type.String(),
  metadata: Json,
  timestamp: DateTime,
});
export const LogWindow = Type.Object({
  data: Type.Array(LogEntry),
  total: Type.Integer(),
  limit: Type.Integer(),
  nextCursor: Type.Optional(Type.Integer()),
});

/** An event as the events stream sends it: its position (the SSE id), type and data. */
export const ExecutionEventJson = Type.Object({ id: Type.Integer(), type: Type.String(), data: Json });

/** GET /workflows/executions/{id}/export (api/executions/export-document.ts writes it; kit/replay.ts reads it). */
export const ExecutionExport = Type.Object({
  format: Type.Literal('platform-execution-export'),
  version: Type.Literal(1),
  exportedAt: DateTime,
  execution: Execution,
  workflow: Type.Object({
    id: Type.String(),
    key: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    nrn: Type.Optional(Type.String()),
    revision: Type.Integer(),
    alias: Type.Optional(Type.String()),
  }),
  definition: Type.Union([Json, Type.Null()], { description: 'The revision as published (normalized), null if it is gone' }),
  inputs: Json,
  trigger: Json,
  steps: Type.Array(Json, { description: 'Every run of every step, in start order, in full (as GET …/steps/{stepId} returns runs)' }),
  children: Type.Array(Type.String(), { description: 'Ids of the sub-workflow executions its steps started' }),
  logs: Type.Array(LogEntry),
  events: Type.Array(ExecutionEventJson),
});

/** The widest window `GET /workflows/executions/stats` counts (168 hourly buckets). */
export const EXECUTION_STATS_MAX_WINDOW_HOURS = 168;
/** How many failing workflows the stats name. */
export const EXECUTION_STATS_FAILING_LIMIT = 10;

export const ExecutionStatsQuery = Type.Object({
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'created at or after (rounded down to the bucket); default: `to` minus 24 hours' }),
  ),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before; default: now' })),
  bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'bucket size, in UTC; default hour' })),
});

const StatusCounts = Type.Record(Type.String(), Type.Integer(), { description: 'executions by current status' });

export const ExecutionStats = Type.Object({
  from: DateTime,
  to: DateTime,
  bucket: Type.String(),
  totals: StatusCounts,
  buckets: Type.Array(Type.Object({ start: DateTime, counts: StatusCounts }), { description: 'every bucket of the window, oldest first' }),
  failingWorkflows: Type.Array(
    Type.Object({
      workflowId: Type.String(),
      workflowKey: Type.Optional(Type.String()),
      failed: Type.Integer(),
      lastFailedAt: DateTime,
    }),
    { description: `the ${EXECUTION_STATS_FAILING_LIMIT} workflows with the most failed executions in the window, most first` },
  ),
});
