/**
 * Step records and events stored compact (migration 1763800000300) read back exactly as the
 * workflow wrote them: batches written through the activity's own function, read through the
 * repositories the API serves from; rows in the form written before the migration read the same.
 *
 *   a#1 (started, then completed with large items) ─▶ b#1 (the same items, other outputs and ports)
 *   ─▶ c#1 (failed) ─▶ d (skipped) ─▶ e#1 (a start time not in toISOString's form) ─▶ a#2 (a loop's second run)
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { recordEventBatch } from '../../activities/record-event-batch';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import type { StepEvent, StepRecord } from '../../workflows/engine';
import { newOrganizationId, testDataSource } from '../support/database';

/** About 6 KB of items that do not compress (random text), so stored copies show in the byte counts. */
const large = () => [{ statusCode: 200, body: { tokens: Array.from({ length: 24 }, () => randomBytes(128).toString('base64')) } }];
const ITEMS = large();
const ITEMS_BYTES = Buffer.byteLength(JSON.stringify(ITEMS));

const at = (second: number) => `2026-11-28T10:00:${String(second).padStart(2, '0')}.123Z`;
const records: Record<string, StepRecord> = {
  a1: {
    stepId: 'a',
    status: 'completed',
    run: 1,
    items: ITEMS,
    outputs: ITEMS[0],
    activePorts: ['default'],
    startedAt: at(1),
    completedAt: at(2),
  },
  b1: {
    stepId: 'b',
    status: 'completed',
    run: 1,
    items: ITEMS,
    outputs: { x: 1 },
    activePorts: ['true'],
    startedAt: at(2),
    completedAt: at(3),
  },
  c1: {
    stepId: 'c',
    status: 'failed',
    run: 1,
    items: [],
    outputs: {},
    activePorts: [],
    error: { code: 'HTTP_4XX', message: 'HTTP 404 Not Found', retryable: false },
    startedAt: at(3),
    completedAt: at(4),
  },
  e1: {
    stepId: 'e',
    status: 'completed',
    run: 1,
    items: [{}],
    outputs: {},
    activePorts: ['default'],
    startedAt: '2026-11-28T10:00:05Z',
    completedAt: at(6),
  },
  a2: {
    stepId: 'a',
    status: 'completed',
    run: 2,
    items: ITEMS,
    outputs: ITEMS[0],
    activePorts: ['default'],
    startedAt: at(7),
    completedAt: at(8),
    metadata: { fanOut: { done: 1, total: 1, failed: 0 } },
  },
};
const skipped: StepRecord = { stepId: 'd', status: 'skipped', run: 0, items: [], outputs: {}, activePorts: [], completedAt: at(5) };

const started = (r: StepRecord): StepEvent => ({ type: 'step.started', stepId: r.stepId, run: r.run, at: r.startedAt! });
const ended = (r: StepRecord): StepEvent => ({
  type: r.status === 'failed' ? 'step.failed' : 'step.completed',
  stepId: r.stepId,
  run: r.run,
  at: r.completedAt!,
  record: r,
});
const batches: StepEvent[][] = [
  [started(records.a1)],
  [ended(records.a1), started(records.b1), ended(records.b1), started(records.c1), ended(records.c1)],
  [{ type: 'step.skipped', stepId: 'd', at: at(5) }, started(records.e1), ended(records.e1), started(records.a2), ended(records.a2)],
];

/** The stream's events as the API served them before (activities/record-event-batch.ts `streamEvent`). */
function streamed(event: StepEvent): { type: string; data: Record<string, unknown> } {
  if (event.type === 'step.completed' || event.type === 'step.failed') {
    const { stepId, run, at: when, record } = event;
    return {
      type: event.type,
      data: { stepId, run, at: when, status: record.status, activePorts: record.activePorts, error: record.error ?? null },
    };
  }
  const { type, ...data } = event;
  return { type, data };
}
const expectedEvents = batches.flat().map(streamed);
const expectedRecords = [records.a1, records.b1, records.c1, records.e1, records.a2, skipped];

describe('compact step records and events', function () {
  let db: DataSource;
  before(async () => {
    db = await testDataSource();
  });

  async function newExecution(): Promise<string> {
    const id = `exec_${randomUUID().replace(/-/g, '')}`;
    await db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace)
       VALUES ($1, $2, 'wf_compact', 1, 'running', '{}'::jsonb, 'default')`,
      [id, newOrganizationId()],
    );
    return id;
  }

  async function readBack(id: string) {
    const steps = await new ExecutionStepRepository(db.manager).listOf(id);
    const byKey = (r: Record<string, unknown>) => `${r.stepId as string}#${r.run as number}`;
    const sorted = (list: Array<Record<string, unknown>>) => [...list].sort((x, y) => byKey(x).localeCompare(byKey(y)));
    const events = await new ExecutionEventRepository(db.manager).after(id, -1);
    return {
      records: sorted(steps.map((row) => row.record as unknown as Record<string, unknown>)),
      events: events.map(({ seq, type, data }) => ({ seq, type, data })),
    };
  }

  const expected = () => ({
    records: [...expectedRecords]
      .map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>)
      .sort((x, y) => `${x.stepId as string}#${x.run as number}`.localeCompare(`${y.stepId as string}#${y.run as number}`)),
    events: expectedEvents.map((event, seq) => ({ seq, ...event })),
  });

  it('reads back every record and event as written, the large items stored once, events one row per batch', async () => {
    const id = await newExecution();
    let seq = 0;
    for (const events of batches) {
      const batch = { executionId: id, organizationId: '1', firstEventSeq: seq, events, logs: [] };
      await recordEventBatch(db, batch);
      // A retried batch changes nothing.
      await recordEventBatch(db, batch);
      seq += events.length;
    }
    assert.deepEqual(await readBack(id), expected());
    // Read from any point of the stream, within a batch too.
    const fromSix = await new ExecutionEventRepository(db.manager).after(id, 5);
    assert.deepEqual(
      fromSix.map(({ seq: n, type, data }) => ({ seq: n, type, data })),
      expected().events.slice(6),
    );

    const [bytes] = await db.query<Array<{ steps: number; payloads: number; payloadRows: number; eventRows: number }>>(
      `SELECT (SELECT sum(pg_column_size(s.*))::int FROM execution_steps s WHERE execution_id = $1) AS steps,
              (SELECT sum(pg_column_size(p.*))::int FROM execution_step_payloads p WHERE execution_id = $1) AS payloads,
              (SELECT count(*)::int FROM execution_step_payloads WHERE execution_id = $1) AS "payloadRows",
              (SELECT count(*)::int FROM execution_events WHERE execution_id = $1) AS "eventRows"`,
      [id],
    );
    assert.equal(bytes.payloadRows, 1, 'the items a1, b1 and a2 share are stored once');
    assert.equal(bytes.eventRows, batches.length, 'one row per batch');
    // Stored whole, the items would be there 5 times (a1's and a2's outputs too): about 30 KB. Compact: once, plus
    // six small rows (under 300 bytes each).
    assert.ok(ITEMS_BYTES > 4000, `${ITEMS_BYTES}`);
    assert.ok(
      bytes.steps + bytes.payloads < ITEMS_BYTES + 6 * 300,
      `steps ${bytes.steps} + payloads ${bytes.payloads} bytes for ${ITEMS_BYTES} bytes of items`,
    );
  });

  it('reads rows written before the migration (whole records, one event per row) as they are', async () => {
    const id = await newExecution();
    for (const r of expectedRecords) {
      await db.query(
        `INSERT INTO execution_steps (execution_id, step_id, run, status, record, started_at, completed_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
        [id, r.stepId, r.run, r.status, JSON.stringify(r), r.startedAt ?? null, r.completedAt ?? null],
      );
    }
    for (const [seq, event] of expectedEvents.entries()) {
      await db.query(`INSERT INTO execution_events (execution_id, seq, type, data) VALUES ($1, $2, $3, $4::jsonb)`, [
        id,
        seq,
        event.type,
        JSON.stringify(event.data),
      ]);
    }
    assert.deepEqual(await readBack(id), expected());
  });

  it('numbers an end event after the last event of the last batch', async () => {
    const id = await newExecution();
    await recordEventBatch(db, { executionId: id, organizationId: '1', firstEventSeq: 0, events: batches[1], logs: [] });
    await new ExecutionRepository(db.manager).finish(id, 'cancelled', null, null);
    const events = await new ExecutionEventRepository(db.manager).after(id, -1);
    assert.deepEqual(
      events.map((event) => [event.seq, event.type]),
      [...batches[1].map((event, seq) => [seq, event.type]), [batches[1].length, 'execution.cancelled']],
    );
  });
});
