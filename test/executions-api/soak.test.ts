/**
 * A bounded soak of hostile requests: a few thousand malformed, deeply nested,
 * oversized and otherwise refused requests, four at a time, against the whole
 * API over a real socket with request spans on (an in-memory span exporter).
 * The process survives (a V8 abort would end mocha itself), every answer is a
 * 4xx, and memory stays bounded. A YAML body nested 2,000 deep once aborted the
 * process this way (the parser's recursion overflowed while V8 compiled a
 * regular expression).
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createApp } from '../../api/app';
import { createTokenVerifier } from '../../api/http/auth';
import { requestSpans } from '../../api/http/request-spans';
import { buildAreaRoutes } from '../../api/routes';
import { captureLogger } from '../support/logger';
import { useExecEnv } from './support';

const REQUESTS = 2400;
const CONCURRENCY = 4;
const BODY_LIMIT = 256 * 1024;

interface Probe {
  method: string;
  path: string;
  contentType?: string;
  body?: string;
  auth?: boolean;
}

/** A small seeded generator, so a failure names a request that the next run sends again. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

function probes(random: () => number): Probe[] {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const depth = () => 1000 + Math.floor(random() * 4000);
  const yaml = (text: string): Probe => ({
    method: pick(['POST', 'PUT']),
    path: pick(['/workflows/definitions', '/workflows/definitions/validate']),
    contentType: 'application/yaml',
    body: text,
  });
  const kinds: Array<() => Probe> = [
    () => {
      const n = depth();
      return yaml(`name: deep\nmetadata: ${'['.repeat(n)}${']'.repeat(n)}\n`);
    },
    () => yaml(`name: deep\nmetadata:\n${'- '.repeat(depth())}x\n`),
    () => yaml(`name: deep\nmetadata: ${'{a: '.repeat(depth())}1${'}'.repeat(2000)}\n`),
    () => yaml(Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')),
    () => yaml(`name: [unclosed\n  steps: {{{\n\t- "bad`),
    () => ({
      method: 'POST',
      path: '/workflows/definitions/validate',
      contentType: 'application/json',
      body: `{"metadata":${'['.repeat(depth())}`,
    }),
    () => ({ method: 'POST', path: '/workflows/definitions', contentType: 'application/json', body: '{"name": "x", "steps": ' }),
    () => ({ method: 'POST', path: '/workflows/definitions', contentType: 'application/json', body: 'x'.repeat(BODY_LIMIT + 1) }),
    () => ({ method: 'POST', path: '/workflows/definitions', contentType: 'text/plain', body: 'name: x' }),
    () => ({ method: 'POST', path: '/workflows/definitions', contentType: 'application/json', body: '{"name": 7, "steps": "no"}' }),
    () => pick(NUL_PROBES),
    () => ({ method: 'GET', path: '/workflows/definitions', auth: false }),
    () => ({ method: 'GET', path: `/workflows/executions/${'x'.repeat(300)}%ff%fe` }),
    () => ({ method: 'GET', path: '/workflows/executions?limit=-1&status=%00' }),
    () => pick(NUL_BODIES),
  ];
  return Array.from({ length: REQUESTS }, () => pick(kinds)());
}

/** A NUL in the id of five route families: PostgreSQL refuses the byte, so these answered 500. */
const NUL_PROBES: Probe[] = [
  { method: 'GET', path: '/workflows/definitions/%00' },
  { method: 'GET', path: '/workflows/executions/%00/logs' },
  { method: 'POST', path: '/workflows/executions/%00/retry', contentType: 'application/json', body: '{}' },
  { method: 'GET', path: '/workflows/executions/%00' },
  { method: 'DELETE', path: '/workflows/definitions/a%00b' },
  { method: 'GET', path: '/workflows/config/%00' },
];

/** A NUL character inside JSON text: PostgreSQL's jsonb and text refuse it. */
const NUL_BODIES: Probe[] = [
  {
    method: 'POST',
    path: '/workflows/definitions',
    contentType: 'application/json',
    body: '{"name":"a\\u0000b","steps":[{"id":"t","type":"trigger","pluginType":"manual"}],"metadata":{"k\\u0000":"v\\u0000"}}',
  },
  { method: 'POST', path: '/workflows/config', contentType: 'application/json', body: '{"name":"NUL","value":"a\\u0000","path":"/"}' },
  { method: 'POST', path: '/workflows/definitions/validate', contentType: 'application/yaml', body: 'name: "a\\0b"\nsteps: []\n' },
];

describe('soak: hostile requests never take the process down', function () {
  this.timeout(180_000);
  const { env, org } = useExecEnv({ withWorker: false });
  let server: Server;
  let base = '';
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  before(async () => {
    const app = createApp({
      config: { bodyLimitBytes: BODY_LIMIT, publicBaseUrl: 'http://api.test', limits: env.limits },
      logger: captureLogger('info').logger,
      verifier: createTokenVerifier({ kind: 'hs256', secret: env.t.secret }),
      readiness: {},
      routes: buildAreaRoutes(env.deps),
      requestSpans: requestSpans(provider.getTracer('soak')),
    });
    server = app.koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await provider.shutdown();
  });

  it(`answers ${REQUESTS} malformed, deep and oversized requests (${CONCURRENCY} at a time) with 4xx, in bounded memory`, async () => {
    const token = await env.t.token({ organizationId: org.id, userId: org.userId });
    const queue = probes(seeded(39));
    const unexpected: string[] = [];
    let spans = 0;
    const before = process.memoryUsage();
    let peakHeap = before.heapUsed;
    const send = async (probe: Probe) => {
      const headers: Record<string, string> = {};
      if (probe.auth !== false) headers.authorization = `Bearer ${token}`;
      if (probe.contentType) headers['content-type'] = probe.contentType;
      const res = await fetch(`${base}${probe.path}`, {
        method: probe.method,
        headers,
        body: probe.body,
        signal: AbortSignal.timeout(30_000),
      }).catch((error: unknown) => ({ status: 0, text: () => Promise.resolve(String(error)) }));
      const text = await res.text().catch(() => '');
      if (res.status < 400 || res.status >= 500)
        unexpected.push(
          `${probe.method} ${probe.path.slice(0, 80)} (${probe.contentType}, ${probe.body?.length ?? 0} B): ${res.status} ${text.slice(0, 200)}`,
        );
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < queue.length) {
          await send(queue[next++]);
          if (next % 200 === 0) {
            // The exporter keeps what it receives: count and drop, so the soak measures the service, not the test.
            spans += exporter.getFinishedSpans().length;
            exporter.reset();
            peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
          }
        }
      }),
    );
    spans += exporter.getFinishedSpans().length;
    assert.deepEqual(unexpected.slice(0, 10), [], `${unexpected.length} answers were not 4xx`);
    assert.ok(spans >= REQUESTS * 0.9, `request spans were recorded (${spans})`);
    const grown = (peakHeap - before.heapUsed) / 2 ** 20;
    assert.ok(grown < 400, `the heap grew by ${grown.toFixed(0)} MB`);
  });
});
