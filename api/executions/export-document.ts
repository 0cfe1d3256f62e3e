/**
 * The export of one execution (GET /workflows/executions/{id}/export): one
 * JSON document with its record, the revision it ran, every step run, log
 * line and event, for archiving before retention removes them and for the
 * kit to replay (`platform-workflow run --from-export`, kit/replay.ts).
 *
 * The document is written as it is read: steps, logs and events come from
 * PostgreSQL in batches of EXPORT_BATCH_ROWS through the repository reads the
 * steps, logs and events endpoints use, so an execution of any size costs one
 * batch of memory. The parts keep those endpoints' shapes: `execution` is
 * GET …/{id}, `steps` the runs of GET …/steps/{stepId} (in full, not capped),
 * `logs` the entries of GET …/logs (oldest first), `events` the stream's
 * events. Records are scrubbed of secrets when the worker writes them, so the
 * document holds no secret value.
 */
import type { ExecutionEntity } from '../../db/entities/execution';
import type { WorkflowEntity } from '../../db/entities/workflow';
import type { WorkflowRevisionEntity } from '../../db/entities/workflow-revision';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { ExecutionLogRepository } from '../../db/repositories/execution-log-repository';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import type { StepRecord } from '../../workflows/engine';
import type { ExecutionDeps } from './deps';
import { eventData, executionJson, logEntryJson } from './serialize';

export const EXPORT_FORMAT = 'platform-execution-export';
export const EXPORT_VERSION = 1;
/** Rows read per query (steps, logs, events): the most the export holds in memory at once. */
export const EXPORT_BATCH_ROWS = 500;

export interface ExportSources {
  row: ExecutionEntity;
  /** Its workflow (null once deleted) and the revision it ran (null if gone). */
  workflow: WorkflowEntity | null;
  revision: WorkflowRevisionEntity | null;
}

/** The document as a sequence of JSON text chunks (one per batch), for a response stream. */
export async function* exportDocument(
  deps: Pick<ExecutionDeps, 'dataSource' | 'temporalUiUrl' | 'temporalRetentionDays'>,
  sources: ExportSources,
  batch = EXPORT_BATCH_ROWS,
): AsyncGenerator<string> {
  const { row, workflow, revision } = sources;
  const head = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    execution: executionJson(row, deps),
    workflow: {
      id: row.workflowId,
      ...(row.workflowKey !== null ? { key: row.workflowKey } : {}),
      ...(workflow ? { name: workflow.name } : {}),
      ...(workflow?.nrn ? { nrn: workflow.nrn } : {}),
      revision: row.revision,
      ...(row.alias !== null ? { alias: row.alias } : {}),
    },
    definition: revision?.definition ?? null,
    inputs: row.inputs,
    trigger: row.trigger,
  };
  const open = JSON.stringify(head);
  yield `${open.slice(0, -1)},"steps":[`;

  // Sub-workflow steps say which child each of their runs started (`_childExecutionId`, workflows/engine/inline/sub-workflow.ts).
  const subWorkflowSteps = new Set(
    Object.values(revision?.definition.steps ?? {})
      .filter((step) => step.pluginType === 'sub-workflow')
      .map((step) => step.id),
  );
  const children = new Set<string>();
  const steps = new ExecutionStepRepository(deps.dataSource.manager);
  let first = true;
  for (let page = 1; ; page += 1) {
    const { rows } = await steps.pageOf(row.id, undefined, page, batch);
    if (rows.length > 0) {
      yield `${first ? '' : ','}${rows.map((step) => JSON.stringify(step.record)).join(',')}`;
      first = false;
    }
    for (const step of rows) if (subWorkflowSteps.has(step.stepId)) for (const id of childIdsOf(step.record)) children.add(id);
    if (rows.length < batch) break;
  }
  yield `],"children":${JSON.stringify([...children])},"logs":[`;

  // Log windows by position, oldest first: [0, batch), [batch, 2·batch), … up to the total as each read finds it.
  const logs = new ExecutionLogRepository(deps.dataSource.manager);
  first = true;
  for (let end = batch; ; end += batch) {
    const window = await logs.window(row.id, { limit: batch, cursor: end });
    if (window.rows.length > 0) {
      yield `${first ? '' : ','}${window.rows.map((log) => JSON.stringify(logEntryJson(row.id, log))).join(',')}`;
      first = false;
    }
    if (end >= window.total) break;
  }
  yield '],"events":[';

  const events = new ExecutionEventRepository(deps.dataSource.manager);
  first = true;
  for (let lastSeq = -1; ;) {
    const rows = await events.after(row.id, lastSeq, batch);
    if (rows.length === 0) break;
    yield `${first ? '' : ','}${rows.map((event) => JSON.stringify({ id: event.seq, type: event.type, data: eventData(row.id, event) })).join(',')}`;
    first = false;
    lastSeq = rows[rows.length - 1].seq;
  }
  yield ']}';
}

function childIdsOf(record: StepRecord | Record<string, unknown>): string[] {
  const items = (record as StepRecord).items ?? [];
  return items.map((item) => item?._childExecutionId).filter((id): id is string => typeof id === 'string');
}
