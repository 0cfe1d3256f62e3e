/**
 * Issue 44's flow-control figures, on the real Temporal CLI dev server started the way `npm start`
 * starts it (bench/dev-server.ts), the real routes over HTTP (keep-alive), a real worker, PostgreSQL:
 * - the start path: `POST …/execute` to its 202 for a one-step workflow without flow control, and for
 *   the same workflow with `concurrency: {key, limit: 1}` whose key has a free slot (each start renders
 *   its own key, so every start pays the admission: the key's advisory lock, the count, the insert).
 *   Starts alternate between the two so the machine's background load hits both alike.
 *   Target: keyed p50 <= 1.2 x plain p50.
 * - slot to start: a chain of runs of one key (limit 1), each holding its slot on a signal wait; each
 *   holder is signalled in turn, and the gap is from the holder's recorded end (`completed_at`) to the
 *   next queued run's Temporal workflow start (its history's start time). Target: p50 < 100 ms.
 *
 * Without a real Temporal CLI (scripts/install-temporal-cli) the bench says so and skips.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startExecEnv, type ExecEnv } from '../test/executions-api/support';
import { closeTestDataSource, newOrganizationId } from '../test/support/database';
import { grantAdmin } from '../test/support/grants';
import { startBenchDevServer } from './dev-server';
import { forgetOrganization } from './end-to-end-harness';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const NAME = 'flow control on the real dev server: the start path with a concurrency key, and a freed slot to the next start';

type Body = Record<string, unknown>;

/** start (manual) ──▶ log, with the given flow control. */
const quick = (flow: Body): Body => ({
  name: 'Flow bench',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    note: { type: 'module', pluginType: 'log', config: { message: 'n=${{ workflow.inputs.n }}' } },
  },
  connections: [{ from: 'start', to: 'note' }],
  ...flow,
});

/** start (manual) ──▶ gate (signal-wait `go`): holds its slot until signalled. */
const gated = (flow: Body): Body => ({
  name: 'Flow bench gated',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    gate: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1h' } },
  },
  connections: [{ from: 'start', to: 'gate' }],
  ...flow,
});

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const startSamples = sized(options, 200, 10);
  const chain = sized(options, 40, 4);
  const server = await startBenchDevServer('flow-control');
  if (!server) return { name: NAME, figures: { skipped: 'no real Temporal CLI found (run scripts/install-temporal-cli)' } };
  let x: ExecEnv | undefined;
  let api: http.Server | undefined;
  let org: string | undefined;
  try {
    const env = await TestWorkflowEnvironment.createFromExistingServer({
      address: server.temporal.address,
      namespace: server.temporal.namespace,
    });
    x = await startExecEnv({ temporal: env });
    api = x.t.app.koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => api!.once('listening', resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    org = newOrganizationId();
    const token = await x.t.token({ organizationId: org, userId: await grantAdmin(x.db, org) });
    const call = async (method: string, path: string, body?: Body): Promise<{ status: number; body: Body }> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Body };
    };
    const publish = async (doc: Body): Promise<string> => {
      const res = await call('POST', '/workflows/definitions', doc);
      if (res.status !== 201) throw new Error(`publish: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body.workflow as Body).id as string;
    };
    const start = async (workflowId: string, inputs: Body): Promise<{ ms: number; id: string; status: string }> => {
      const t0 = process.hrtime.bigint();
      const res = await call('POST', `/workflows/definitions/${workflowId}/execute`, { inputs });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.status !== 202) throw new Error(`execute: ${res.status} ${JSON.stringify(res.body)}`);
      return { ms, id: res.body.executionId as string, status: res.body.status as string };
    };
    const statusOf = async (id: string): Promise<string> => (await call('GET', `/workflows/executions/${id}`)).body.status as string;
    const until = async (id: string, wanted: string): Promise<void> => {
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20)))
        if ((await statusOf(id)) === wanted) return;
      throw new Error(`execution ${id} did not reach ${wanted}`);
    };
    const openRuns = async (): Promise<number> =>
      (
        await x!.db.query<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM executions WHERE organization_id = $1 AND status IN ('queued', 'running', 'waiting')`,
          [org],
        )
      )[0].n;
    const settle = async (): Promise<void> => {
      for (const deadline = Date.now() + 300_000; (await openRuns()) > 0; await new Promise((resolve) => setTimeout(resolve, 100)))
        if (Date.now() > deadline) throw new Error('the started runs did not all end');
    };

    // (a) The start path, plain against keyed (a free slot each time), alternating, after a warm-up of each.
    const plain = await publish(quick({}));
    const keyed = await publish(quick({ concurrency: { key: 'k-${{ workflow.inputs.n }}', limit: 1 } }));
    for (let n = 0; n < 3; n += 1) {
      await start(plain, { n: `warm-${n}` });
      await start(keyed, { n: `warm-${n}` });
    }
    const latencies = { plain: [] as number[], keyed: [] as number[] };
    for (let n = 0; n < startSamples; n += 1) {
      const order = n % 2 === 0 ? (['plain', 'keyed'] as const) : (['keyed', 'plain'] as const);
      for (const side of order) {
        const started = await start(side === 'plain' ? plain : keyed, { n: `s-${n}` });
        if (started.status !== 'running') throw new Error(`a start with a free slot answered ${started.status}`);
        latencies[side].push(started.ms);
      }
    }
    await settle();

    // (b) A chain of one key: every run but the first queued; each holder signalled once the one before has ended.
    const gate = await publish(gated({ concurrency: { key: 'chain', limit: 1 } }));
    const ids: string[] = [];
    for (let n = 0; n < chain; n += 1) ids.push((await start(gate, { n })).id);
    for (const id of ids) {
      await until(id, 'waiting');
      const res = await call('POST', `/workflows/executions/${id}/signals/go`, {});
      if (res.status !== 200) throw new Error(`signal: ${res.status} ${JSON.stringify(res.body)}`);
      await until(id, 'completed');
    }
    const rows = await x.db.query<Array<{ id: string; completed_at: Date; admitted_at: Date }>>(
      `SELECT id, completed_at, admitted_at FROM executions WHERE id = ANY($1)`,
      [ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const toAdmitted: number[] = [];
    const toStarted: number[] = [];
    for (let n = 1; n < ids.length; n += 1) {
      const freed = byId.get(ids[n - 1])!.completed_at.getTime();
      const startTime = (await env.client.workflow.getHandle(ids[n]).describe()).startTime.getTime();
      toAdmitted.push(byId.get(ids[n])!.admitted_at.getTime() - freed);
      toStarted.push(startTime - freed);
    }

    const ratio = percentile(latencies.keyed, 50) / percentile(latencies.plain, 50);
    const gapP50 = percentile(toStarted, 50);
    return {
      name: NAME,
      figures: {
        'starts measured per side (alternating, c=1)': startSamples,
        'queued runs handed a freed slot': toStarted.length,
        'keyed p50 / plain p50 (start path)': round(ratio, 2),
      },
      table: {
        columns: ['p50 ms', 'p95 ms'],
        rows: [
          ['execute → 202, no flow control', [round(percentile(latencies.plain, 50), 1), round(percentile(latencies.plain, 95), 1)]],
          [
            'execute → 202, concurrency key (free slot)',
            [round(percentile(latencies.keyed, 50), 1), round(percentile(latencies.keyed, 95), 1)],
          ],
          ['holder ended → next queued run promoted', [round(percentile(toAdmitted, 50), 1), round(percentile(toAdmitted, 95), 1)]],
          ['holder ended → next queued run started', [round(gapP50, 1), round(percentile(toStarted, 95), 1)]],
        ],
      },
      targets: [
        { label: `start path p50 with a concurrency key <= 1.2 x without one (${round(ratio, 2)} x)`, met: ratio <= 1.2 },
        { label: `freed slot to the next queued run's start p50 < 100 ms (${round(gapP50, 1)} ms)`, met: gapP50 < 100 },
      ],
    };
  } finally {
    if (api) await new Promise((resolve) => api!.close(resolve));
    if (x && org) await forgetOrganization(x, org);
    await x?.stop();
    await server.stop();
    await closeTestDataSource();
  }
}
