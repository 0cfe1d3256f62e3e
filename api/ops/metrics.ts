/**
 * Prometheus metrics: one registry per app, so several apps in one process (tests) do not collide. In a
 * process that runs a worker too, the Temporal SDK's own metrics (served by its core on a loopback port)
 * follow the app's in the same answer.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The text `/metrics` answers: this registry's metrics, then the Temporal SDK's when the process has them. */
  text(): Promise<string>;
  /** Counts rows the retention sweep removed, by table (the sweep's totals; `batches` is not a table). */
  retentionRemoved(rowsByTable: Record<string, number>): void;
  /** What a pass of the open-runs sweep found (executions/check-open-runs.ts), and the open runs whose workflow task fails. */
  openRunsChecked(found: { newlyFailing: string[]; settled: Array<{ status: string }> }, taskFailing: number): void;
  /**
   * Flow control (executions/flow/), after each flow sweep: the queued runs of the namespace and the oldest one's age,
   * and how long each run this process's sweep started had waited in its queue.
   */
  flowSwept(queue: { queued: number; oldestSeconds: number }, waitedSeconds: number[]): void;
}

/** How long `/metrics` waits for the Temporal SDK's metrics before answering without them. */
const TEMPORAL_SDK_SCRAPE_TIMEOUT_MS = 2000;

/** `temporalSdkMetricsUrl`: where this process's Temporal SDK serves its Prometheus metrics (worker/worker.ts). */
export function createHttpMetrics(temporalSdkMetricsUrl?: string): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const retention = new Counter({
    name: 'retention_removed_rows_total',
    help: 'Rows the retention sweep removed, by table (executions, steps, logs, events, waits, signalDeliveries, …).',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  const taskFailing = new Gauge({
    name: 'executions_workflow_task_failing',
    help: 'Open executions whose workflow task keeps failing, as the open-runs sweep last saw them (no progress until fixed).',
    registers: [registry],
  });
  const taskFailures = new Counter({
    name: 'executions_workflow_task_failing_found_total',
    help: 'Open executions the open-runs sweep found with a failing workflow task (each counted when first found).',
    registers: [registry],
  });
  const settled = new Counter({
    name: 'executions_settled_from_temporal_total',
    help: 'Open executions Temporal had closed without a record of their end, settled by the open-runs sweep, by status.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const queued = new Gauge({
    name: 'executions_queued',
    help: 'Executions queued by flow control (concurrency, throttle, debounce), as the last flow sweep counted them.',
    registers: [registry],
  });
  const oldestQueued = new Gauge({
    name: 'executions_queued_oldest_seconds',
    help: 'Age of the oldest queued execution (0 when none), as the last flow sweep saw it.',
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: 'executions_queue_wait_seconds',
    help: "How long the executions this process's flow sweep started had waited queued (recorded to admitted).",
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  // Label children are looked up once per (method, route, status): route patterns keep the set small,
  // and prom-client would otherwise hash the labels on every request.
  const children = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>();
  return {
    registry,
    observe(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        child = { count: requests.labels(method, route, String(status)), latency: duration.labels(method, route, String(status)) };
        children.set(key, child);
      }
      child.count.inc();
      child.latency.observe(seconds);
    },
    async text() {
      const own = await registry.metrics();
      return temporalSdkMetricsUrl ? `${own}\n${await temporalSdkMetrics(temporalSdkMetricsUrl)}` : own;
    },
    openRunsChecked(found, failing) {
      taskFailing.set(failing);
      if (found.newlyFailing.length > 0) taskFailures.inc(found.newlyFailing.length);
      for (const run of found.settled) settled.labels(run.status).inc();
    },
    flowSwept(queue, waitedSeconds) {
      queued.set(queue.queued);
      oldestQueued.set(queue.oldestSeconds);
      for (const seconds of waitedSeconds) queueWait.observe(seconds);
    },
    retentionRemoved(rowsByTable) {
      for (const [table, rows] of Object.entries(rowsByTable)) if (table !== 'batches' && rows > 0) retention.labels(table).inc(rows);
    },
  };
}

/** The Temporal SDK's metrics text; when they cannot be had, a comment line saying why (the app's metrics still answer). */
async function temporalSdkMetrics(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TEMPORAL_SDK_SCRAPE_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      return `# Temporal SDK metrics unavailable: HTTP ${response.status}\n`;
    }
    return await response.text();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `# Temporal SDK metrics unavailable: ${reason.replace(/\s+/g, ' ')}\n`;
  }
}
