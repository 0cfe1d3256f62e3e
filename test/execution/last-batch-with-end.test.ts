/**
 * The workflow's last local activity (finishExecution) with the run's last batch of records: written with the
 * end in one statement (db/repositories/step-batch-end-statement.ts) when the batch leaves no step running, and
 * the same rows as the batch and the end written apart: the step the batch completes is completed (not settled
 * as cancelled), a step left running is settled, the variables, logs and both events are there. A batch that
 * leaves a step running is written apart, then the end, which settles that step.
 */
import assert from 'node:assert/strict';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { EventBatch } from '../../activities/execution-activity-types';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import type { StepRecord } from '../../workflows/engine';
import { activitiesOn } from '../support/activities';
import { closeTestDataSource, recordExecution, testDataSource } from '../support/database';

/** Counts the statements sent to PostgreSQL by any client while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<number> {
  const client = Client.prototype as unknown as { query: (this: Client, ...args: unknown[]) => unknown };
  const original = client.query;
  let count = 0;
  client.query = function (this: Client, ...args: unknown[]) {
    count += 1;
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    client.query = original;
  }
  return count;
}

async function seed(db: DataSource, running: string[]): Promise<string> {
  const id = await recordExecution(db, { workflowId: 'wf_end' });
  const at = new Date().toISOString();
  await new ExecutionStepRepository(db.manager).upsertRecords(
    id,
    running.map((stepId): StepRecord => ({ stepId, status: 'running', run: 1, items: [], outputs: {}, activePorts: [], startedAt: at })),
  );
  return id;
}

describe('the last batch of records with the end', () => {
  after(closeTestDataSource);
  const completed = (stepId: string, startedAt: string): StepRecord => ({
    stepId,
    status: 'completed',
    run: 1,
    items: [{ ok: true }],
    outputs: { ok: true },
    activePorts: ['default'],
    startedAt,
    completedAt: new Date().toISOString(),
  });
  const rows = async (db: DataSource, id: string) => ({
    execution: (await db.query(`SELECT status, outputs, variables FROM executions WHERE id = $1`, [id]))[0],
    steps: Object.fromEntries(
      (await db.query(`SELECT step_id, status, record->'error'->>'code' AS code FROM execution_steps WHERE execution_id = $1`, [id])).map(
        (row: { step_id: string; status: string; code: string | null }) => [row.step_id, [row.status, row.code]],
      ),
    ),
    events: (await db.query(`SELECT seq, type FROM execution_events WHERE execution_id = $1 ORDER BY seq`, [id])).map(
      (row: { seq: number; type: string }) => `${row.seq}:${row.type}`,
    ),
    logs: Number((await db.query(`SELECT count(*) AS n FROM execution_logs WHERE execution_id = $1`, [id]))[0].n),
  });

  it('writes a batch that leaves no step running with the end, in one statement', async () => {
    const db = await testDataSource();
    const activities = activitiesOn(db);
    const id = await seed(db, ['call', 'other']);
    const record = completed('call', new Date(Date.now() - 50).toISOString());
    const batch: EventBatch = {
      executionId: id,
      organizationId: '1',
      firstEventSeq: 3,
      events: [{ type: 'step.completed', stepId: 'call', run: 1, at: record.completedAt!, record }],
      logs: [{ stepId: 'call', level: 'info', message: 'done', seq: 0, stepSeq: 0, timestamp: record.completedAt! }],
      progress: { variables: { answer: 42 } },
    };
    const statements = await statementsOf(() =>
      activities.finishExecution({ executionId: id, organizationId: '1', status: 'completed', eventSeq: 4, outputs: { out: 1 }, batch }),
    );
    assert.equal(statements, 1);
    const found = await rows(db, id);
    assert.deepEqual(found.execution, { status: 'completed', outputs: { out: 1 }, variables: { answer: 42 } });
    // The step the batch completes stays completed; the one still running is settled by the end.
    assert.deepEqual(found.steps, { call: ['completed', null], other: ['cancelled', 'EXECUTION_COMPLETED'] });
    assert.deepEqual(found.events, ['3:step.completed', '4:execution.completed']);
    assert.equal(found.logs, 1);
    // Written again (a retried local activity): nothing changes.
    await activities.finishExecution({
      executionId: id,
      organizationId: '1',
      status: 'completed',
      eventSeq: 4,
      outputs: { out: 1 },
      batch,
    });
    assert.deepEqual(await rows(db, id), found);
  });

  it('writes a batch that leaves a step running apart, then the end, which settles it', async () => {
    const db = await testDataSource();
    const activities = activitiesOn(db);
    const id = await seed(db, []);
    const at = new Date().toISOString();
    const batch: EventBatch = {
      executionId: id,
      organizationId: '1',
      firstEventSeq: 0,
      events: [{ type: 'step.started', stepId: 'late', run: 1, at }],
      logs: [],
    };
    const statements = await statementsOf(() =>
      activities.finishExecution({
        executionId: id,
        organizationId: '1',
        status: 'cancelled',
        eventSeq: 1,
        outputs: {},
        error: { type: 'CANCELLED', message: 'cancelled' },
        batch,
      }),
    );
    assert.equal(statements, 2);
    const found = await rows(db, id);
    assert.equal(found.execution.status, 'cancelled');
    assert.deepEqual(found.steps, { late: ['cancelled', 'EXECUTION_CANCELLED'] });
    assert.deepEqual(found.events, ['0:step.started', '1:execution.cancelled']);
  });
});
