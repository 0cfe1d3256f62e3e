/**
 * Publishing speed: POST /workflows/definitions with a 50-step definition at
 * concurrency 16 through HTTP (keep-alive fetch to a loopback listener), and in
 * the same run a bare `pg` transaction inserting the same three rows
 * (workflow, revision, latest alias). Targets: the endpoint reaches at least
 * 40% of the bare transaction's throughput; p50 at concurrency 1 < 10 ms.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { workflowRoutes } from '../api/workflows';
import { loadConfig } from '../config/config';
import { createTestApp } from '../test/support/app';
import { closeTestDataSource, testDataSource } from '../test/support/database';
import { atConcurrency, percentile, round, type BenchReport } from './report';
import { grantAdmin } from '../test/support/grants';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const ORG = '990101';
const CONCURRENCY = 16;

/** trigger ──▶ s1 ──▶ s2 ──▶ … ──▶ s49 (set-variable and log steps with templates). */
function fiftySteps(): Record<string, unknown> {
  const steps: Record<string, unknown> = { trigger: { type: 'trigger', pluginType: 'manual' } };
  const connections: unknown[] = [];
  let previous = 'trigger';
  for (let i = 1; i < 50; i += 1) {
    const id = `s${i}`;
    steps[id] =
      i % 2 === 0
        ? { type: 'module', pluginType: 'log', config: { level: 'info', message: `step ${i}: \${{ steps.${previous}.outputs.value }}` } }
        : {
            type: 'module',
            pluginType: 'set-variable',
            config: { path: `v${i}`, value: `\${{ variables.count + ${i} }}` },
            timeout: '30s',
          };
    connections.push({ from: previous, to: id });
    previous = id;
  }
  return { name: 'Fifty steps', path: '/bench', steps, connections, variables: { count: { initialValue: 0 } } };
}

/**
 * The HTTP load generator runs in a worker thread (plain JavaScript, keep-alive
 * node:http), as real clients would run elsewhere: the server's event loop
 * then spends its time on the server's work only.
 */
const LOAD_GENERATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, path, headers, body, total, concurrency, expected } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const call = () => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => res.statusCode === expected ? resolve() : reject(new Error(res.statusCode + ' ' + Buffer.concat(chunks).toString().slice(0, 300))));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(body);
});
(async () => {
  let next = 0;
  const latencies = [];
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      next += 1;
      const t0 = process.hrtime.bigint();
      await call();
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  parentPort.postMessage({ perSecond: total / seconds, latencies });
})().catch((error) => parentPort.postMessage({ error: String(error && error.message || error) }));
`;

function loadFromWorker(data: Record<string, unknown>): Promise<{ perSecond: number; latencies: number[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_GENERATOR, { eval: true, workerData: data });
    worker.once('message', (message: { perSecond: number; latencies: number[]; error?: string }) => {
      void worker.terminate();
      if (message.error) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const rounds = sized(options, 6, 2);
  const requests = sized(options, 2400, 64);
  const warmUp = sized(options, 200, 16);
  const db = await testDataSource();
  const url = (db.options as { url?: string }).url;
  if (!url) throw new Error('the test data source has no URL');
  const config = { ...loadConfig(), publicBaseUrl: 'http://bench.test' };
  const t = createTestApp({
    routes: workflowRoutes({ config, dataSource: db, temporal: {} as Client, encryptionKey: randomBytes(32) }),
    bodyLimitBytes: 4 * 1024 * 1024,
  });
  const server = t.app.koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const body = JSON.stringify(fiftySteps());
  const headers = {
    authorization: `Bearer ${await t.token({ organizationId: ORG, userId: await grantAdmin(db, ORG) })}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  const publishLoad = (total: number, concurrency: number) =>
    loadFromWorker({ port, path: '/workflows/definitions', headers, body, total, concurrency, expected: 201 });
  // A keep-alive node:http client on the main thread, for the warm-up.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const publish = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/workflows/definitions', method: 'POST', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 201
            ? resolve()
            : reject(new Error(`publish: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });

  // The bare transaction writes the same rows with the same payload, without HTTP, auth or validation.
  const pool = new Pool({ connectionString: url, max: CONCURRENCY });
  const definitionJson = body;
  const hash = createHash('sha256').update(body).digest('hex');
  const bare = async () => {
    const client = await pool.connect();
    const id = `wf_${randomBytes(12).toString('hex')}`;
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO workflows (id, organization_id, name, path, nrn) VALUES ($1, $2, 'Fifty steps', '/bench', $3)`, [
        id,
        ORG,
        `organization=${ORG}`,
      ]);
      await client.query(
        `INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, engine_version) VALUES ($1, 1, $2::jsonb, $3, 'bench', '1')`,
        [id, definitionJson, hash],
      );
      await client.query(`INSERT INTO workflow_aliases (workflow_id, name, revision, updated_by) VALUES ($1, 'latest', 1, 'bench')`, [id]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };

  try {
    await atConcurrency(warmUp, CONCURRENCY, publish);
    await atConcurrency(warmUp, CONCURRENCY, bare);
    // Alternate short rounds of the two measurements so background load (other
    // processes on a small machine) hits both alike; the ratio is the median of
    // the per-round ratios.
    const perRound: Array<{ endpoint: number; bare: number }> = [];
    const latencies16: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const endpointRound = await publishLoad(requests / rounds, CONCURRENCY);
      const bareRound = await atConcurrency(requests / rounds, CONCURRENCY, bare);
      perRound.push({ endpoint: endpointRound.perSecond, bare: bareRound.perSecond });
      latencies16.push(...endpointRound.latencies);
    }
    const endpoint = perRound.reduce((sum, r) => sum + r.endpoint, 0) / rounds;
    const transaction = perRound.reduce((sum, r) => sum + r.bare, 0) / rounds;
    const ratio = percentile(
      perRound.map((r) => r.endpoint / r.bare),
      50,
    );
    const serial = await publishLoad(sized(options, 300, 10), 1);
    const p50 = percentile(serial.latencies, 50);
    return {
      name: 'workflow definitions: publish a 50-step definition (HTTP, embedded PostgreSQL)',
      figures: {
        'definition size bytes': body.length,
        'POST /workflows/definitions at c=16 (publishes/s)': round(endpoint, 1),
        'bare pg transaction, same 3 rows at c=16 (tx/s)': round(transaction, 1),
        'ratio endpoint / bare transaction (median of rounds)': round(ratio, 3),
        'per-round ratios': perRound.map((r) => round(r.endpoint / r.bare, 2)).join(' '),
        'POST p50 at c=1 ms': round(p50),
        'POST p95 at c=1 ms': round(percentile(serial.latencies, 95)),
        'POST p50 at c=16 ms': round(percentile(latencies16, 50)),
      },
      targets: [
        { label: 'endpoint throughput >= 40% of the bare transaction', met: ratio >= 0.4 },
        { label: 'p50 latency at concurrency 1 < 10 ms', met: p50 < 10 },
      ],
    };
  } finally {
    await pool.end();
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
    await db.query(`DELETE FROM workflows WHERE organization_id = $1`, [ORG]);
    await closeTestDataSource();
  }
}
