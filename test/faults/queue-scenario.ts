/**
 * The fault test's queue (issue 44): runs of one concurrency key (limit 1) queued behind each other
 * while the scenario kills a worker and an API replica (./scenario.ts). Each run calls the counting
 * server, then holds its slot on a signal wait; a releaser signals the run holding the slot every
 * HOLD_MS, so slots free and queued runs are promoted all through the faults (a promotion may die with
 * the worker that was handing the slot on, or the replica that was admitting). At the end: every
 * queued run ran exactly once, one at a time in the order they were accepted, and none is left queued.
 */
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { chain, step, trigger } from '../support/definitions';

/** A client of the shape's front (./scenario.ts apiClient; its type spelled here so the two files do not import each other). */
type ApiCall = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

const QUEUED_RUNS = 20;
/** How long each run holds the slot once it waits: long enough for the queue to last through the worker and API faults. */
const HOLD_MS = 2500;
const SETTLE_TIMEOUT_MS = 300_000;
const WORKFLOW = 'queue';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ended = (status: unknown) => status === 'completed' || status === 'failed' || status === 'cancelled';

/** The queue's definition: one key for every run, limit 1; an http step (activity), then a signal wait. */
export async function defineQueueWorkload(api: ApiCall, base: string): Promise<void> {
  const doc = {
    name: WORKFLOW,
    path: '/faults',
    concurrency: { key: 'lane-${{ workflow.inputs.lane }}', limit: 1, onLimit: 'queue' },
    steps: chain(
      trigger(),
      step('q1', 'http-request', { url: `${base}/hit/\${{ execution.id }}/q1`, method: 'GET' }, { timeout: '60s' }),
      step('gate', 'signal-wait', { signalName: 'go' }),
    ),
  };
  const res = await api('PUT', `/workflows/definitions/${WORKFLOW}`, doc);
  assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
}

interface QueuedRun {
  key: string;
  executionId?: string;
  status?: string;
  waitingSince?: number;
}

/**
 * Queues QUEUED_RUNS runs of one key (accepted one after another, each retried with its idempotency key
 * until the API answers), then releases the slot's holder every HOLD_MS in the background.
 */
export async function startQueueLoad(api: ApiCall) {
  const runs: QueuedRun[] = Array.from({ length: QUEUED_RUNS }, (_, i) => ({ key: `queue-${i}` }));
  for (const run of runs) {
    for (const deadline = Date.now() + 120_000; run.executionId === undefined; await sleep(300)) {
      if (Date.now() > deadline) throw new Error(`queued run ${run.key} was never accepted`);
      const res = await api('POST', `/workflows/definitions/${WORKFLOW}/execute`, { inputs: { lane: 'a' }, idempotencyKey: run.key }).catch(
        () => undefined,
      );
      if (res && (res.status === 202 || res.status === 200)) run.executionId = String(res.body.executionId);
      else if (res) assert.ok(res.status >= 500, `queue start: unexpected ${res.status}: ${JSON.stringify(res.body)}`);
    }
  }
  /** [time, runs still queued] at each look: the figures say how long the queue lasted. */
  const samples: Array<[number, number]> = [];
  let releasing = true;
  let holdMs = HOLD_MS;

  /** Looks at every run not ended; signals one that has waited its hold. */
  const tick = async () => {
    let queued = 0;
    for (const run of runs) {
      if (ended(run.status)) continue;
      const res = await api('GET', `/workflows/executions/${run.executionId}`).catch(() => undefined);
      if (!res || res.status !== 200) continue;
      run.status = String(res.body.status);
      if (run.status === 'queued') queued += 1;
      if (run.status !== 'waiting') continue;
      run.waitingSince ??= Date.now();
      if (Date.now() - run.waitingSince >= holdMs)
        await api('POST', `/workflows/executions/${run.executionId}/signals/go`, {}).catch(() => undefined);
    }
    samples.push([Date.now(), queued]);
  };
  const releaser = (async () => {
    while (releasing) {
      await tick();
      await sleep(500);
    }
  })();

  /** Runs still queued at `at`, as last seen before it. */
  const queuedAt = (at: number): number => samples.filter(([t]) => t <= at).at(-1)?.[1] ?? QUEUED_RUNS;

  return {
    /**
     * Releases the rest without holding, waits for every run to end, and checks: completed, each once,
     * in order, none queued. `attemptsOf` answers a run's recorded activity attempts per step.
     */
    async finish(options: {
      databaseUrl: string;
      calls: Map<string, number>;
      attemptsOf: (workflowId: string) => Promise<Map<string, number>>;
      faults: Array<{ name: string; at: number }>;
    }): Promise<string[]> {
      holdMs = 0;
      for (const deadline = Date.now() + SETTLE_TIMEOUT_MS; runs.some((run) => !ended(run.status)); await sleep(500))
        if (Date.now() > deadline) break;
      releasing = false;
      await releaser;
      const ids = runs.map((run) => run.executionId!);
      assert.deepEqual(
        runs.filter((run) => run.status !== 'completed').map((run) => `${run.key}:${run.executionId} ${run.status}`),
        [],
        'every queued run completed',
      );
      assert.equal(new Set(ids).size, QUEUED_RUNS, 'one execution per queued start');

      const rows = await queueRows(options.databaseUrl);
      assert.equal(rows.length, QUEUED_RUNS, 'no run of the queue recorded twice');
      assert.deepEqual(
        rows.filter((row) => row.status === 'queued').map((row) => row.id),
        [],
        'none left queued',
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (let i = 1; i < ids.length; i += 1) {
        const previous = byId.get(ids[i - 1])!;
        const current = byId.get(ids[i])!;
        assert.ok(
          current.admitted_at.getTime() >= previous.completed_at.getTime(),
          `queued run ${i} (${current.id}) got the slot at ${current.admitted_at.toISOString()}, before run ${i - 1} ended at ${previous.completed_at.toISOString()}`,
        );
      }
      for (const id of ids) {
        const calls = options.calls.get(`${id}/q1`) ?? 0;
        const attempts = (await options.attemptsOf(id)).get('q1') ?? 0;
        assert.ok(calls >= 1 && calls <= attempts, `queued run ${id}: ${calls} calls of its step for ${attempts} recorded attempts`);
        assert.ok(byId.get(id)!.temporal_run_id, `queued run ${id} recorded its Temporal run`);
      }
      // The queue was still there when the worker and the API replica died (else this part tested nothing).
      const atFaults = options.faults.slice(0, 2).map((fault) => ({ name: fault.name, queued: queuedAt(fault.at) }));
      for (const fault of atFaults) assert.ok(fault.queued > 0, `runs were queued at "${fault.name}"`);
      return [
        `${'queued runs of one key (limit 1)'.padEnd(40)} ${QUEUED_RUNS}, each ran once, in order; none left queued`,
        ...atFaults.map((fault) => `${`  queued at: ${fault.name}`.padEnd(40)} ${fault.queued}`),
      ];
    },
  };
}

/** The queue's rows as recorded (a client of its own, closed before it answers). */
async function queueRows(databaseUrl: string) {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ id: string; status: string; admitted_at: Date; completed_at: Date; temporal_run_id: string }>(
      `SELECT e.id, e.status, e.admitted_at, e.completed_at, e.temporal_run_id
         FROM executions e JOIN workflows w ON w.id = e.workflow_id WHERE w.key = $1`,
      [WORKFLOW],
    );
    return rows;
  } finally {
    await pg.end();
  }
}
