/**
 * The end-to-end bench's HTTP client, in a process of its own (as real clients run
 * elsewhere: the measured process then spends its CPU on the server's work only).
 * Started by end-to-end.bench.ts (and scale-out.bench.ts) with an IPC channel; each
 * message is a round of jobs: `POST /workflows/definitions/{id}/execute`, then wait until
 * the execution reads `completed` through the API, either on its event stream (SSE,
 * `…/events`, until the `execution.*` end event), by polling `GET /workflows/executions/{id}`,
 * or by one held read `GET /workflows/executions/{id}?wait=…` (asked again while it still
 * runs). Keep-alive node:http, `concurrency` jobs in flight (of which at most
 * `startConcurrency` in their execute call); answers with jobs/s, the round's seconds and
 * each job's latency.
 */
import http from 'node:http';
import { limiter } from './report';

export type Completion = { kind: 'sse' } | { kind: 'poll'; intervalMs: number } | { kind: 'wait'; seconds: number };

export interface ClientRound {
  port: number;
  token: string;
  workflowId: string;
  total: number;
  concurrency: number;
  /** At most this many execute calls in flight (jobs past theirs wait for the end apart); unset: `concurrency`. */
  startConcurrency?: number;
  completion: Completion;
}

export interface ClientResult {
  perSecond: number;
  /** Wall time of the round: from its first execute call to its last completion seen. */
  seconds: number;
  /** Seconds from the round's start until its last execute call was answered. */
  startsSeconds: number;
  /** ms from the execute call to the completion seen, one per job. */
  latencies: number[];
  /** HTTP requests made (execute calls included). */
  requests: number;
  error?: string;
}

// A round holds one socket per job waiting for its end (scale-out: 400), plus the execute calls.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function call(round: ClientRound, method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${round.token}` };
    if (body !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const req = http.request({ host: '127.0.0.1', port: round.port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads the execution's event stream until its end event; resolves with the end status. */
function endOnEventStream(round: ClientRound, executionId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${round.token}`, accept: 'text/event-stream' };
    const path = `/workflows/executions/${executionId}/events`;
    const req = http.request({ host: '127.0.0.1', port: round.port, path, method: 'GET', headers, agent }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`events: ${res.statusCode}`));
      }
      let buffered = '';
      let ended: string | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let cut: number;
        while (ended === undefined && (cut = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          if (type?.startsWith('execution.')) {
            ended = type.slice('execution.'.length);
            resolve(ended); // the server ends the stream right after; the socket goes back to the pool
          }
        }
      });
      res.on('end', () =>
        ended === undefined ? reject(new Error(`the event stream of ${executionId} ended without an end event`)) : undefined,
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls the execution until it is no longer running or waiting; resolves with its status and the GETs made. */
async function endByPolling(round: ClientRound, executionId: string, intervalMs: number): Promise<{ status: string; gets: number }> {
  for (let gets = 1; ; gets++) {
    const res = await call(round, 'GET', `/workflows/executions/${executionId}`);
    if (res.status !== 200) throw new Error(`GET execution: ${res.status} ${res.body.slice(0, 300)}`);
    const status = String((JSON.parse(res.body) as { status?: unknown }).status);
    if (status !== 'running' && status !== 'waiting') return { status, gets };
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Holds `GET …?wait=` until the execution is no longer running; resolves with its status and the GETs made. */
async function endByWaiting(round: ClientRound, executionId: string, seconds: number): Promise<{ status: string; gets: number }> {
  for (let gets = 1; ; gets++) {
    const res = await call(round, 'GET', `/workflows/executions/${executionId}?wait=${seconds}s`);
    if (res.status !== 200) throw new Error(`GET execution?wait: ${res.status} ${res.body.slice(0, 300)}`);
    const status = String((JSON.parse(res.body) as { status?: unknown }).status);
    if (status !== 'running') return { status, gets };
  }
}

async function runRound(round: ClientRound): Promise<ClientResult> {
  let next = 0;
  let requests = 0;
  const latencies: number[] = [];
  const starting = limiter(round.startConcurrency ?? round.concurrency);
  const started = process.hrtime.bigint();
  let startsSeconds = 0;
  const job = async () => {
    const t0 = process.hrtime.bigint();
    const res = await starting(() => call(round, 'POST', `/workflows/definitions/${round.workflowId}/execute`, '{}'));
    if (res.status !== 202) throw new Error(`execute: ${res.status} ${res.body.slice(0, 300)}`);
    startsSeconds = Math.max(startsSeconds, Number(process.hrtime.bigint() - started) / 1e9);
    const { executionId } = JSON.parse(res.body) as { executionId: string };
    let status: string;
    if (round.completion.kind === 'sse') {
      status = await endOnEventStream(round, executionId);
      requests += 2;
    } else {
      const polled =
        round.completion.kind === 'poll'
          ? await endByPolling(round, executionId, round.completion.intervalMs)
          : await endByWaiting(round, executionId, round.completion.seconds);
      status = polled.status;
      requests += 1 + polled.gets;
    }
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (status !== 'completed') throw new Error(`execution ${executionId} ended ${status}`);
  };
  await Promise.all(
    Array.from({ length: round.concurrency }, async () => {
      while (next < round.total) {
        next += 1;
        await job();
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: round.total / seconds, seconds, startsSeconds, latencies, requests };
}

process.on('message', (round: ClientRound) => {
  runRound(round).then(
    (result) => process.send?.(result),
    (error: unknown) =>
      process.send?.({
        perSecond: 0,
        seconds: 0,
        startsSeconds: 0,
        latencies: [],
        requests: 0,
        error: String((error as Error)?.message ?? error),
      }),
  );
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
