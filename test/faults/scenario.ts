/**
 * The load, the faults and the checks of the production shape's fault test, for any way of running
 * the shape: `npm run test:faults` (startup/cluster, processes) and `npm run test:containers`
 * (docker-compose.yml under podman). Steady load while a worker, an API replica, the Temporal
 * server and PostgreSQL each fail in turn; then every execution the API accepted ends as it
 * should, none is lost or duplicated, every effectful step called the counting server once per
 * attempt Temporal recorded, and a dependency that is down answers 503, never a hang. Runs queued
 * behind a concurrency key through the faults each run once, in order (./queue-scenario.ts). Prints
 * load held, latency and recovery times.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { chain, step, trigger } from '../support/definitions';
import { defineQueueWorkload, startQueueLoad } from './queue-scenario';

const LOAD_INTERVAL_MS = 400;
const PHASE_MS = 12_000;
const SETTLE_TIMEOUT_MS = 180_000;

export type Kind = 'one' | 'ten' | 'wait' | 'parent' | 'hook' | 'light';
interface Job {
  key: string;
  kind: Kind;
  requestedAt: number;
  acceptedAt?: number;
  executionId?: string;
  attempts: number;
}

/** Counts calls per execution and step: `/hit/<executionId>/<stepId>`. */
export function countingServer(host = '127.0.0.1'): Promise<{ url: string; calls: Map<string, number>; close(): Promise<void> }> {
  const calls = new Map<string, number>();
  const server = http.createServer((req, res) => {
    // Execution ids of cron ticks carry dots and colons (`cron-<workflow>.<alias>.<trigger>…-<tick>`).
    const match = /^\/hit\/([^/]+)\/([\w-]+)$/.exec(req.url ?? '');
    const key = match ? `${decodeURIComponent(match[1])}/${match[2]}` : '';
    if (match) calls.set(key, (calls.get(key) ?? 0) + 1);
    res.writeHead(match ? 200 : 404, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  return new Promise((resolve) =>
    server.listen(0, host, () =>
      resolve({
        url: `http://${host}:${(server.address() as AddressInfo).port}`,
        calls,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

/**
 * An http step that runs as an activity: a step `timeout` over LIGHT_STEP_MAX_TIMEOUT_MS (30 s), as an http-request
 * without one is a light step (a local activity). `light` runs measure that default.
 */
const hit = (base: string, id: string, extra: Record<string, unknown> = { timeout: '60s' }) =>
  step(id, 'http-request', { url: `${base}/hit/\${{ execution.id }}/${id}`, method: 'GET' }, extra);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** The http steps each kind of run calls, by step id. */
const HTTP_STEPS: Record<Kind, string[]> = {
  one: ['h1'],
  ten: Array.from({ length: 10 }, (_, i) => `h${i + 1}`),
  wait: ['before', 'after'],
  parent: ['p1'],
  hook: ['w1'],
  // Light steps (no step timeout, the default: local activities), whose attempts Temporal keeps in markers, not activity events.
  light: Array.from({ length: 10 }, (_, i) => `l${i + 1}`),
};

export type CountingServer = Awaited<ReturnType<typeof countingServer>>;

/** One way of running the production shape, with the faults it can inject. */
export interface ShapeUnderTest {
  title: string;
  frontUrl: string;
  temporalAddress: string;
  databaseUrl: string;
  /** The worker and API replica faults: each kills one, and resolves once it is back. */
  faults: Record<'worker' | 'api', { name: string; inject: () => Promise<void> }>;
  restartTemporal(options: { downMs: number }): Promise<void>;
  restartPostgres(options: { downMs: number }): Promise<void>;
}

export type ApiCall = (
  method: string,
  url: string,
  body?: unknown,
  timeoutMs?: number,
) => Promise<{ status: number; body: Record<string, unknown> }>;

/** Reads the front answered with its own gateway error (502, 504: no replica reached), retried as a client would. */
export const frontGatewayErrors = { retried: 0 };

/**
 * A client of the shape's front with `token`. A GET the front itself answers with 502 or 504 (an
 * HTML page: the API never saw it) is retried up to 5 times and counted in `frontGatewayErrors`.
 */
export function apiClient(frontUrl: string, token: string): ApiCall {
  const call: ApiCall = async (method, url, body, timeoutMs = 10_000) => {
    for (let attempt = 1; ; attempt += 1) {
      const res = await fetch(`${frontUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      const gatewayError = (res.status === 502 || res.status === 504) && !text.startsWith('{');
      if (gatewayError && method === 'GET' && attempt < 5) {
        frontGatewayErrors.retried += 1;
        await sleep(1000);
        continue;
      }
      if (gatewayError) return { status: res.status, body: { frontError: text.slice(0, 200) } };
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    }
  };
  return call;
}

/** Puts the workloads' definitions (http steps calling `base`), activates the webhook and cron ones; answers the webhook's path. */
export async function defineWorkloads(api: ApiCall, base: string): Promise<string> {
  const definitions: Record<Kind | 'tick', Record<string, unknown>> = {
    one: { steps: chain(trigger(), hit(base, 'h1')) },
    ten: {
      steps: chain(
        trigger(),
        ...HTTP_STEPS.ten.map((id) => hit(base, id)),
        step('note', 'log', { message: 'ten done ${{ execution.id }}' }),
      ),
    },
    hook: { steps: chain(trigger('start', 'webhook', { mode: 'start', method: 'POST' }), hit(base, 'w1')) },
    light: { steps: chain(trigger(), ...HTTP_STEPS.light.map((id) => hit(base, id, {}))) },
    tick: { steps: chain(trigger('tick', 'cron', { schedule: '* * * * *' }), hit(base, 'c1')) },
    wait: { steps: chain(trigger(), hit(base, 'before'), step('approval', 'signal-wait', { signalName: 'go' }), hit(base, 'after')) },
    parent: { steps: chain(trigger(), hit(base, 'p1'), step('child', 'sub-workflow', { workflowId: 'one' })) },
  };
  for (const [key, doc] of Object.entries(definitions)) {
    const res = await api('PUT', `/workflows/definitions/${key}`, { name: key, path: '/faults', ...doc });
    assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
  }
  for (const key of ['hook', 'tick']) {
    const res = await api('POST', `/workflows/definitions/${key}/aliases/latest/activate`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  await defineQueueWorkload(api, base);
  const triggers = await api('GET', '/workflows/triggers?workflowId=hook&status=active');
  const hookTrigger = (triggers.body.data as Array<{ runtimeMetadata?: { webhookUrl?: string } }>)[0];
  return new URL(String(hookTrigger?.runtimeMetadata?.webhookUrl)).pathname;
}

/** Runs the load through the four faults and checks what the shape did with it. */
export async function runFaultScenario(options: {
  shape: ShapeUnderTest;
  api: ApiCall;
  counter: CountingServer;
  webhookPath: string;
  token: string;
  /** PostgreSQL clients the caller's `after` closes should the test end early. */
  pgClients: PgClient[];
}): Promise<void> {
  const { shape, api, counter, webhookPath, token, pgClients } = options;
  const jobs: Job[] = [];
  const acceptLatencies: number[] = [];
  let loadOn = true;
  let sequence = 0;
  const kinds: Kind[] = ['one', 'hook', 'ten', 'one', 'wait', 'parent', 'light'];
  // An anonymous webhook delivery, retried by its sender with the same Idempotency-Key.
  const deliver = async (key: string) => {
    const res = await fetch(`${shape.frontUrl}${webhookPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ delivery: key }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  // A client that retries with the same idempotency key until the API answers (as real clients must).
  const submit = async (job: Job) => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      job.attempts += 1;
      try {
        const res =
          job.kind === 'hook'
            ? await deliver(job.key)
            : await api('POST', `/workflows/definitions/${job.kind}/execute`, { inputs: {}, idempotencyKey: job.key });
        if (res.status === 202 || res.status === 200) {
          // Webhook ingress names no execution (its caller is anonymous): it is found by its key afterwards.
          job.executionId = job.kind === 'hook' ? undefined : String(res.body.executionId);
          job.acceptedAt = Date.now();
          acceptLatencies.push(job.acceptedAt - job.requestedAt);
          return;
        }
        assert.ok(res.status >= 500, `unexpected ${res.status}: ${JSON.stringify(res.body)}`);
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
      }
      await sleep(300);
    }
    throw new Error(`job ${job.key} was never accepted`);
  };
  const queue = await startQueueLoad(api);
  const submissions: Array<Promise<void>> = [];
  const load = (async () => {
    while (loadOn) {
      const job: Job = { key: `job-${(sequence += 1)}`, kind: kinds[sequence % kinds.length], requestedAt: Date.now(), attempts: 0 };
      jobs.push(job);
      submissions.push(submit(job));
      await sleep(LOAD_INTERVAL_MS);
    }
  })();

  const faults: Array<{ name: string; at: number; recoveredAt?: number; note?: string }> = [];
  const fault = async (name: string, inject: () => Promise<void>) => {
    await sleep(PHASE_MS);
    const entry = { name, at: Date.now() } as (typeof faults)[number];
    faults.push(entry);
    await inject();
    entry.recoveredAt = Date.now();
  };
  const loadStarted = Date.now();
  await fault(shape.faults.worker.name, shape.faults.worker.inject);
  await fault(shape.faults.api.name, shape.faults.api.inject);
  const whileDown: Array<{ status: number; ms: number }> = [];
  const whileTemporalDown: Array<{ status: number; ms: number; body: unknown }> = [];
  await fault('Temporal server restarted', async () => {
    const restart = shape.restartTemporal({ downMs: 9000 });
    await sleep(2500);
    // A start while Temporal is down is refused at once (nothing recorded as started), never left hanging.
    const t0 = Date.now();
    const res = await api('POST', '/workflows/definitions/one/execute', { idempotencyKey: 'probe-temporal-down' }, 15_000).catch(
      (error: Error) => ({ status: -1, body: { error: error.message } }),
    );
    whileTemporalDown.push({ status: res.status, ms: Date.now() - t0, body: res.body });
    await restart;
  });
  await fault('PostgreSQL restarted', async () => {
    const restart = shape.restartPostgres({ downMs: 4000 });
    await sleep(1500);
    // While the database is down the API answers, and says so: 503, never a hang.
    const t0 = Date.now();
    const res = await api('GET', '/workflows/executions?limit=1', undefined, 15_000).catch((error: Error) => ({
      status: -1,
      body: { error: error.message },
    }));
    whileDown.push({ status: res.status, ms: Date.now() - t0 });
    await restart;
  });
  await sleep(PHASE_MS);
  loadOn = false;
  await load;
  await Promise.all(submissions);
  const loadEnded = Date.now();

  const pg = new PgClient({ connectionString: shape.databaseUrl });
  await pg.connect();
  pgClients.push(pg);
  const byKey = await pg.query<{ id: string; key: string }>(
    `SELECT id, idempotency_key AS key FROM executions WHERE idempotency_key LIKE 'webhook:%:job-%'`,
  );
  for (const row of byKey.rows) {
    const job = jobs.find((j) => `webhook:start:${j.key}` === row.key);
    if (job) job.executionId = row.id;
  }
  assert.deepEqual(
    jobs.filter((job) => job.executionId === undefined).map((job) => job.key),
    [],
    'every accepted webhook delivery recorded its run',
  );

  // Release the runs that wait for a signal, then wait for everything to end.
  const ids = new Set(jobs.map((job) => job.executionId));
  assert.equal(ids.size, jobs.length, 'one execution per idempotency key');
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  const finals = new Map<string, Record<string, unknown>>();
  const lastSeen = new Map<string, unknown>();
  while (finals.size < jobs.length && Date.now() < deadline) {
    for (const job of jobs) {
      if (finals.has(job.key)) continue;
      const res = await api('GET', `/workflows/executions/${job.executionId}`).catch(() => undefined);
      if (!res || res.status !== 200) continue;
      lastSeen.set(job.key, { status: res.body.status, temporal: res.body.temporal, createdAt: res.body.createdAt });
      if (res.body.status === 'completed' || res.body.status === 'failed' || res.body.status === 'cancelled') finals.set(job.key, res.body);
      else if (job.kind === 'wait' && res.body.status === 'waiting')
        await api('POST', `/workflows/executions/${job.executionId}/signals/go`, { approved: true }).catch(() => undefined);
    }
    if (finals.size < jobs.length) await sleep(1000);
  }
  const unfinished = jobs
    .filter((job) => !finals.has(job.key))
    .map((job) => `${job.key}:${job.executionId} ${JSON.stringify(lastSeen.get(job.key))}`);
  assert.deepEqual(unfinished, [], 'every accepted execution ended');
  const notCompleted = [...finals.entries()].filter(([, body]) => body.status !== 'completed');
  assert.deepEqual(notCompleted, [], 'every execution completed');

  // None duplicated in the database either (idempotency held across replicas and restarts), cron ticks included.
  let ticks: Array<{ id: string; status: string }>;
  try {
    const { rows } = await pg.query<{ key: string; n: number }>(
      `SELECT idempotency_key AS key, count(*)::int AS n FROM executions WHERE idempotency_key LIKE '%job-%' OR idempotency_key LIKE 'cron:%' GROUP BY 1 HAVING count(*) > 1`,
    );
    assert.deepEqual(rows, [], 'no idempotency key started twice');
    ticks = (
      await pg.query<{ id: string; status: string }>(
        `SELECT e.id, e.status FROM executions e JOIN workflows w ON w.id = e.workflow_id WHERE w.key = 'tick'`,
      )
    ).rows;
  } finally {
    await pg.end();
    pgClients.splice(pgClients.indexOf(pg), 1);
  }
  assert.ok(ticks.length >= 1, 'the cron trigger fired during the run');
  for (const tick of ticks) {
    const done = await api('GET', `/workflows/executions/${tick.id}`);
    assert.equal(done.body.status, 'completed', `cron run ${tick.id}: ${JSON.stringify(done.body)}`);
    assert.ok((counter.calls.get(`${tick.id}/c1`) ?? 0) >= 1, `cron run ${tick.id} called its step`);
  }

  // Every effectful step called the server at least once and at most once per attempt Temporal recorded.
  const connection = await Connection.connect({ address: shape.temporalAddress });
  const temporal = new Client({ connection, namespace: 'default' });
  let extraCalls = 0;
  let queueFigures: string[];
  try {
    const queueChecks = { databaseUrl: shape.databaseUrl, calls: counter.calls, faults };
    queueFigures = await queue.finish({ ...queueChecks, attemptsOf: (id) => activityAttempts(temporal, id) });
    for (const job of jobs) {
      const body = finals.get(job.key)!;
      const attempts = await activityAttempts(temporal, (body.temporal as { workflowId: string }).workflowId);
      let lightRepeats = 0;
      for (const stepId of HTTP_STEPS[job.kind]) {
        const calls = counter.calls.get(`${job.executionId}/${stepId}`) ?? 0;
        assert.ok(calls >= 1, `${job.executionId}/${stepId} never called`);
        extraCalls += calls - 1;
        if (job.kind === 'light') {
          lightRepeats += calls - 1;
          continue;
        }
        const recorded = attempts.get(stepId) ?? 0;
        assert.ok(calls <= recorded, `${job.executionId}/${stepId}: ${calls} calls for ${recorded} recorded attempts`);
      }
      // Light steps: only the call in flight when a worker died may be made again, never a completed one.
      assert.ok(lightRepeats <= 1, `${job.executionId}: ${lightRepeats} repeated light step calls`);
      const steps = await api('GET', `/workflows/executions/${job.executionId}/steps?limit=200`);
      const records = steps.body.data as Array<{ stepId: string; status: string }>;
      for (const stepId of HTTP_STEPS[job.kind]) {
        assert.equal(records.find((r) => r.stepId === stepId)?.status, 'completed', `${job.executionId} step ${stepId} recorded`);
      }
    }
  } finally {
    await connection.close();
  }

  // Logs complete: each 10-step run wrote its closing line exactly once.
  for (const job of jobs.filter((j) => j.kind === 'ten')) {
    const logs = await api('GET', `/workflows/executions/${job.executionId}/logs?limit=1000`);
    const lines = (logs.body.data as Array<{ message: string }>).filter((entry) => entry.message === `ten done ${job.executionId}`);
    assert.equal(lines.length, 1, `${job.executionId} logged its closing line once`);
  }

  // An event stream resumes after the last event seen, through the front (any replica).
  const sample = jobs.find((j) => j.kind === 'ten')!;
  const all = await eventIds(`${shape.frontUrl}/workflows/executions/${sample.executionId}/events`, token);
  assert.ok(all.length > 10, `events of a 10-step run: ${all.join(',')}`);
  assert.deepEqual(
    all,
    all.map((_, i) => String(i)),
    'event ids are positions, in order',
  );
  const resumed = await eventIds(`${shape.frontUrl}/workflows/executions/${sample.executionId}/events`, token, all[4]);
  assert.deepEqual(resumed, all.slice(5), 'resumed right after Last-Event-ID, nothing repeated or skipped');

  assert.ok(
    whileTemporalDown.length === 1 && whileTemporalDown[0].status === 503,
    `with Temporal down the API answered ${JSON.stringify(whileTemporalDown)}`,
  );
  assert.ok(whileDown.length === 1 && whileDown[0].status === 503, `with PostgreSQL down the API answered ${JSON.stringify(whileDown)}`);

  // Figures.
  const perSecond = (from: number, to: number) =>
    jobs.filter((job) => job.acceptedAt !== undefined && job.acceptedAt >= from && job.acceptedAt < to).length / ((to - from) / 1000);
  const firstFault = faults[0].at;
  const lastRecovery = faults[faults.length - 1].recoveredAt!;
  console.log(`\n  ${shape.title}`);
  console.log(`    executions accepted                      ${jobs.length} (${jobs.filter((j) => j.attempts > 1).length} needed a retry)`);
  console.log(
    `    executions/s before / during / after     ${perSecond(loadStarted, firstFault).toFixed(2)} / ${perSecond(firstFault, lastRecovery).toFixed(2)} / ${perSecond(lastRecovery, loadEnded).toFixed(2)}`,
  );
  console.log(`    accept latency p50 / p99 ms              ${percentile(acceptLatencies, 50)} / ${percentile(acceptLatencies, 99)}`);
  console.log(`    effectful calls repeated by retries      ${extraCalls}`);
  console.log(`    reads the front answered 502/504, retried ${frontGatewayErrors.retried}`);
  for (const line of queueFigures) console.log(`    ${line}`);
  for (const entry of faults) {
    // What a client saw: the first execution requested after the fault and accepted, and how long that took.
    const firstAccepted = Math.min(...jobs.filter((job) => job.requestedAt >= entry.at).map((job) => job.acceptedAt!));
    console.log(
      `    ${entry.name.padEnd(40)} back in ${entry.recoveredAt! - entry.at} ms; first execution accepted after ${firstAccepted - entry.at} ms`,
    );
  }
  console.log(`    API with Temporal down                   ${whileTemporalDown[0].status} in ${whileTemporalDown[0].ms} ms`);
  console.log(`    API with PostgreSQL down                 ${whileDown[0].status} in ${whileDown[0].ms} ms`);
}

/** The ids of every event of a finished execution's stream (which ends after the end event). */
async function eventIds(url: string, token: string, lastEventId?: string): Promise<string[]> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
    signal: AbortSignal.timeout(15_000),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  return [...text.matchAll(/^id: ?(\S+)$/gm)].map((match) => match[1]);
}

/** Attempts per step id of a workflow's plugin activities, from its history (the started event carries the last attempt number). */
async function activityAttempts(client: Client, workflowId: string): Promise<Map<string, number>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const stepOf = new Map<string, string>();
  const attempts = new Map<string, number>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const payload = scheduled.input?.payloads?.[0]?.data;
      const call = payload ? (JSON.parse(Buffer.from(payload).toString('utf8')) as { stepId?: string }) : {};
      if (call.stepId) stepOf.set(String(event.eventId), call.stepId);
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const stepId = stepOf.get(String(started.scheduledEventId));
      if (stepId) attempts.set(stepId, (attempts.get(stepId) ?? 0) + (started.attempt ?? 1));
    }
  }
  return attempts;
}
