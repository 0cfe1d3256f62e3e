/**
 * Traces and the Temporal SDK's metrics, on `npm start` as an operator runs it (on this file's
 * database, Temporal and task queue). With OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP
 * receiver, one execution whose steps call a local server makes one trace there: the API request
 * (child of the caller's `traceparent`) → StartWorkflow → RunWorkflow → StartActivity →
 * RunActivity → the HTTP call, whose `traceparent` the called server receives. Without the
 * endpoint nothing of the OpenTelemetry SDK loads and no `traceparent` is sent. Either way `/metrics`
 * carries the Temporal SDK's series.
 *
 *   start ──▶ light (http-request, a local activity) ──▶ heavy (http-request, timeout 60s: an activity)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { mintToken } from '../../api/http/auth';
import { freePort } from '../../startup/temporal';
import { workflowBundle } from '../../worker/worker';
import { chain, step, trigger } from '../support/definitions';
import { useLocalServer } from '../support/local-server';
import { captureLogger } from '../support/logger';
import { startListening, type ListeningService } from '../support/process';
import { useExecEnv } from '../executions-api/support';

/** A span as the OTLP/HTTP JSON exporter sends it (the fields read here). */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: number | string } }>;
}

const SERVER_KIND = 2;
const CLIENT_KIND = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

interface Service extends ListeningService {
  base: string;
}

describe('traces and Temporal SDK metrics on npm start', function () {
  this.timeout(180_000);
  const { env, org } = useExecEnv({ withWorker: false });
  const jwtSecret = randomBytes(32).toString('hex');
  let dataDir: string;
  let service: Service | undefined;

  const exported: ExportedSpan[] = [];
  const receiver = useLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) exported.push(...scope.spans);
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  /** What the called server received, by path (`/<run>/<step>`). */
  const calls: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const called = useLocalServer((req, res) => {
    calls.push({ path: req.url ?? '', headers: req.headers });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  });

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-traces-'));
  });
  afterEach(() => {
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
    service = undefined;
  });
  after(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** `npm start` on the file's services; resolves once the API listens. */
  const start = async (settings: Record<string, string>): Promise<Service> => {
    const port = await freePort();
    const running = await startListening(
      'bin/start.ts',
      {
        DATABASE_URL: (env.db.options as { url: string }).url,
        TEMPORAL_ADDRESS: env.temporal.address,
        TEMPORAL_NAMESPACE: env.temporal.namespace ?? 'default',
        TEMPORAL_TASK_QUEUE: env.taskQueue,
        CONFIG_ENCRYPTION_KEY: env.encryptionKey.toString('hex'),
        AUTH_JWT_SECRET: jwtSecret,
        BOOTSTRAP_ADMINS: `${org.userId}:${org.id}`,
        EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_FORMAT: 'json',
        NODE_OPTIONS: `--require ${path.join(__dirname, 'loaded-modules.cjs')}`,
        ...settings,
      },
      90_000,
    );
    return { ...running, base: `http://127.0.0.1:${port}` };
  };

  /** SIGTERM (the graceful shutdown flushes the spans); the number of OpenTelemetry SDK modules the process had loaded (loaded-modules.cjs). */
  const stop = async (running: Service): Promise<number> => {
    running.child.kill('SIGTERM');
    assert.equal(await running.exited, 0, running.output());
    await new Promise((resolve) => setImmediate(resolve));
    const reported = /loaded-opentelemetry-modules: (\d+)/.exec(running.output());
    assert.ok(reported, running.output());
    return Number(reported[1]);
  };

  const api = async (running: Service, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const token = await mintToken({
      userId: org.userId,
      organizationId: org.id,
      userType: 'person',
      secret: new TextEncoder().encode(jwtSecret),
    });
    const response = await fetch(`${running.base}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Publishes (once) and runs the two-call workflow; resolves when the run completed. */
  const runOnce = async (running: Service, tag: string, headers: Record<string, string> = {}): Promise<void> => {
    const key = `traced-${tag}`;
    const published = await api(running, 'POST', '/workflows/definitions', {
      name: `Traced ${tag}`,
      key,
      steps: chain(
        trigger(),
        step('light', 'http-request', { url: `${called.base}/${tag}/light` }),
        step('heavy', 'http-request', { url: `${called.base}/${tag}/heavy`, timeout: '60s' }),
      ),
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const started = await api(running, 'POST', `/workflows/definitions/${key}/execute`, {}, headers);
    assert.equal(started.status, 202, JSON.stringify(started.body));
    let status = '';
    for (let i = 0; i < 300 && !['completed', 'failed', 'cancelled'].includes(status); i++) {
      status = String((await api(running, 'GET', `/workflows/executions/${String(started.body.executionId)}`)).body.status);
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 'completed');
  };

  /** GET /metrics has the Temporal SDK's workflow task, activity schedule-to-start and sticky cache series. */
  const assertTemporalMetrics = async (running: Service): Promise<void> => {
    const text = await fetch(`${running.base}/metrics`).then((response) => response.text());
    assert.match(text, /^http_requests_total\{/m, 'the API metrics are still there');
    for (const name of [
      /^temporal_workflow_task_schedule_to_start_latency_seconds_bucket\{/m,
      /^temporal_workflow_task_execution_latency_seconds_bucket\{/m,
      /^temporal_activity_schedule_to_start_latency_seconds_bucket\{/m,
      /^temporal_sticky_cache_size\{/m,
      /^temporal_sticky_cache_hit\{/m,
    ])
      assert.match(text, name);
  };

  it('sends one linked trace of an execution to the OTLP endpoint, and a traceparent to the called service', async () => {
    service = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base, OTEL_SERVICE_NAME: 'traces-test' });
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    await runOnce(service, 'on', { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    await assertTemporalMetrics(service);
    assert.ok((await stop(service)) > 0, 'the OpenTelemetry SDK was loaded');

    const trace = exported.filter((span) => span.traceId === callerTrace);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const attribute = (span: ExportedSpan, key: string) => {
      const value = span.attributes.find((entry) => entry.key === key)?.value;
      return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
    };
    /** The names from the span up to the root of the trace. */
    const ancestry = (span: ExportedSpan): string[] => {
      const names: string[] = [];
      for (let at: ExportedSpan | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) names.push(at.name);
      return names;
    };

    const request = trace.find((span) => span.kind === SERVER_KIND && span.name.startsWith('HTTP POST /workflows/definitions/'));
    assert.ok(request, `no request span in ${JSON.stringify(trace.map((span) => span.name))}`);
    assert.equal(request.parentSpanId, callerSpan, "the request span is a child of the caller's traceparent");
    assert.equal(attribute(request, 'http.method'), 'POST');
    assert.equal(attribute(request, 'http.status_code'), 202);
    assert.match(String(attribute(request, 'http.route')), /^\/workflows\/definitions\/.+\/execute$/);

    for (const name of ['light', 'heavy']) {
      const call = calls.find((entry) => entry.path === `/on/${name}`);
      assert.ok(call?.headers.traceparent, `the called server received a traceparent for ${name}: ${JSON.stringify(calls)}`);
      const [, traceId, parentId] = TRACEPARENT.exec(String(call.headers.traceparent)) ?? [];
      assert.equal(traceId, callerTrace, `${name}'s traceparent carries the execution's trace`);
      const client = byId.get(parentId);
      assert.ok(client, `${name}'s traceparent names an exported span`);
      assert.equal(client.kind, CLIENT_KIND);
      assert.equal(attribute(client, 'server.address'), '127.0.0.1');
      const activity = name === 'light' ? 'callLightStep' : 'callPlugin';
      assert.deepEqual(
        ancestry(client).map((spanName) => spanName.replace(/^HTTP POST \/.*/, 'HTTP POST <route>')),
        [
          'HTTP GET',
          `RunActivity:${activity}`,
          `StartActivity:${activity}`,
          'RunWorkflow:runWorkflowExecution',
          'StartWorkflow:runWorkflowExecution',
          'HTTP POST <route>',
        ],
      );
    }
  });

  it('loads nothing of the OpenTelemetry SDK and sends no traceparent without an endpoint; /metrics has the Temporal SDK series', async () => {
    const before = exported.length;
    service = await start({});
    await runOnce(service, 'off');
    await assertTemporalMetrics(service);
    assert.equal(await stop(service), 0, 'no OpenTelemetry SDK module was loaded');
    const offCalls = calls.filter((entry) => entry.path.startsWith('/off/'));
    assert.deepEqual(offCalls.map((entry) => entry.path).sort(), ['/off/heavy', '/off/light']);
    for (const call of offCalls) assert.equal(call.headers.traceparent, undefined, call.path);
    assert.equal(exported.length, before, 'nothing reached the receiver');
  });
});

describe('traces: histories of earlier releases replay with tracing on', function () {
  this.timeout(120_000);

  it("replays every recorded history against the bundle with the SDK's OpenTelemetry workflow interceptors", async () => {
    const dir = path.join(__dirname, '../fixtures/histories');
    const files = readdirSync(dir).filter((file) => file.endsWith('.history.bin'));
    assert.ok(files.length >= 4, `histories found: ${files.join(', ')}`);
    const histories = files.map((file) => ({
      workflowId: file,
      history: temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file))),
    }));
    // Loaded here, not at the top: the file's other tests check what a service without tracing loads.
    const { startOpenTelemetry } = await import('../../startup/opentelemetry.js');
    const tracing = startOpenTelemetry({ endpoint: 'http://127.0.0.1:9', serviceName: 'replay', logger: captureLogger().logger });
    try {
      const replayed: string[] = [];
      const options = {
        workflowBundle: await workflowBundle(tracing.worker.workflowInterceptorModules),
        interceptors: tracing.worker.interceptors,
        sinks: tracing.worker.sinks,
      };
      for await (const result of Worker.runReplayHistories(options, histories)) {
        assert.equal(result.error, undefined, `${result.workflowId} does not replay: ${String(result.error)}`);
        replayed.push(result.workflowId);
      }
      assert.deepEqual(replayed.sort(), files.sort());
    } finally {
      await tracing.shutdown();
    }
  });
});
