/**
 * `npm start` killed under load: its own process alone dies by SIGKILL (as by a V8
 * abort or the OOM killer: no code of its own runs), and the servers it started
 * (embedded PostgreSQL, the Temporal dev server, a group of its own) end by
 * themselves within seconds (startup/child-watchdog.ts), leaving no process
 * behind; then the service restarts on the same DATA_DIR. Clients resend every
 * request with the same idempotency key. Then every accepted execution completes
 * with the right outputs, none is started twice, and every step made its call: a
 * step whose worker died with everything else runs again, as when its worker alone
 * dies (activity steps after their heartbeat timeout, light steps after their
 * workflow task timeout).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../../startup/orphan-process';
import { freePort } from '../../startup/temporal';
import { chain, step, trigger } from '../support/definitions';
import { ROOT, runScript } from '../support/process';

const EXECUTIONS = 80;
/** Executions accepted before the kill; the rest are sent while the service is down and after. */
const KILL_AFTER_ACCEPTED = 40;
/** How long each call holds its response, so that calls are in flight when everything dies. */
const CALL_MS = 1_000;
const SETTLE_TIMEOUT_MS = 300_000;

/** Activity steps (the default timeout) and light steps (a short one: local activities). */
type Kind = 'activity' | 'light';
const STEPS: Record<Kind, string[]> = { activity: ['a1', 'a2'], light: ['l1', 'l2'] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('npm start killed (SIGKILL) under load', function () {
  this.timeout(15 * 60_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'platform-sigkill-'));
  const devServerPidFile = path.join(dataDir, 'temporal', 'dev-server.sqlite.pid');
  /** Calls per `<executionId>/<stepId>`. */
  const calls = new Map<string, number>();
  let counter: http.Server;
  let base = '';
  let port = 0;
  let env: NodeJS.ProcessEnv;
  let service: ChildProcess | undefined;
  let token = '';

  /** `npm start` in a process group of its own (as a terminal or a supervisor runs it); resolves once /ready answers. */
  const start = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/start.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start was not ready within 120 s:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(5_000) })
        .then((res) => res.ok)
        .catch(() => false);
      if (ready) return child;
      await sleep(250);
    }
  };

  const pidIn = (file: string): number | undefined => {
    try {
      const pid = Number(readFileSync(file, 'utf8').split('\n')[0].trim());
      return Number.isInteger(pid) && pid > 1 ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const devServerPid = () => pidIn(devServerPidFile);
  const postmasterPid = () => pidIn(path.join(dataDir, 'postgres', 'postmaster.pid'));

  /** SIGKILL to the service's group and to its dev server, at once: nothing is told it stops. */
  const killEverything = (child: ChildProcess | undefined) => {
    let devServerPid = 0;
    try {
      devServerPid = Number(readFileSync(devServerPidFile, 'utf8').trim());
    } catch {
      // No dev server started yet.
    }
    for (const target of [child?.pid ? -child.pid : 0, devServerPid])
      if (target !== 0) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
  };

  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  before(async () => {
    counter = http.createServer((req, res) => {
      const match = /^\/hit\/([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (match) calls.set(`${match[1]}/${match[2]}`, (calls.get(`${match[1]}/${match[2]}`) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(match ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ step: match?.[2] }));
      }, CALL_MS);
    });
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
    port = await freePort();
    env = {
      // eslint-disable-next-line no-restricted-properties -- passing the environment through to a child, not reading configuration
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TEMPORAL_UI_PORT: String(await freePort()),
      TEMPORAL_SERVER: 'cli',
      EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
    };
    service = await start();
    token = (await runScript('bin/token.ts', { env: { DATA_DIR: dataDir }, args: ['--user', '1', '--org', '1'] })).stdout.trim();
    const hit = (id: string, extra: Record<string, unknown> = {}) =>
      step(id, 'http-request', { url: `${base}/hit/\${{ execution.id }}/${id}`, method: 'GET' }, extra);
    for (const kind of Object.keys(STEPS) as Kind[]) {
      const extra = kind === 'light' ? { timeout: '5s' } : {};
      const [first, second] = STEPS[kind];
      const res = await api('PUT', `/workflows/definitions/${kind}`, {
        name: kind,
        path: '/sigkill',
        steps: chain(trigger(), hit(first, extra), hit(second, extra)),
        outputs: { first: `\${{ steps.${first}.outputs.body.step }}`, second: `\${{ steps.${second}.outputs.body.step }}` },
      });
      assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
    }
  });

  after(async () => {
    killEverything(service);
    await new Promise<void>((resolve) => (counter ? counter.close(() => resolve()) : resolve()));
    counter?.closeAllConnections();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes every accepted execution once, each step having made its call', async () => {
    const kinds: Kind[] = ['activity', 'light'];
    const jobs = Array.from({ length: EXECUTIONS }, (_, i) => ({
      key: `sigkill-${i}`,
      kind: kinds[i % 2],
      executionIds: new Set<string>(),
    }));
    /** A client that resends with the same idempotency key until the service answers. */
    const submit = async (job: (typeof jobs)[number]) => {
      const deadline = Date.now() + 240_000;
      while (Date.now() < deadline) {
        const res = await api('POST', `/workflows/definitions/${job.kind}/execute`, { inputs: {}, idempotencyKey: job.key }).catch(
          () => undefined,
        );
        if (res && (res.status === 200 || res.status === 202)) {
          job.executionIds.add(String(res.body.executionId));
          return;
        }
        if (res) assert.ok(res.status >= 500, `unexpected ${res.status}: ${JSON.stringify(res.body)}`);
        await sleep(500);
      }
      throw new Error(`${job.key} was never accepted`);
    };

    let accepted = 0;
    let killed!: () => void;
    const killedWhole = new Promise<void>((resolve) => (killed = resolve));
    const sends = jobs.map(async (job, i) => {
      await sleep(i * 50);
      await submit(job);
      if (++accepted === KILL_AFTER_ACCEPTED) killed();
    });
    // A client that gives up fails the test here rather than leaving it waiting for the kill.
    await Promise.race([killedWhole, Promise.all(sends)]);
    // Calls of the accepted runs are in flight (each holds CALL_MS): the service's process dies alone, at once.
    const children = [devServerPid(), postmasterPid()].filter((pid): pid is number => pid !== undefined);
    assert.equal(children.length, 2, 'the dev server and PostgreSQL were found');
    process.kill(service!.pid!, 'SIGKILL');
    await new Promise((resolve) =>
      service!.exitCode !== null || service!.signalCode !== null ? resolve(undefined) : service!.once('exit', resolve),
    );
    const left = () => children.filter((pid) => isAlive(pid));
    for (const deadline = Date.now() + 30_000; left().length > 0 && Date.now() < deadline;) await sleep(200);
    assert.deepEqual(left(), [], 'no server outlives the killed service');
    service = await start();
    await Promise.all(sends);
    // Every client resends its request once more (it never learnt whether the first answer was final).
    for (const job of jobs) await submit(job);

    const duplicated = jobs.filter((job) => job.executionIds.size !== 1).map((job) => `${job.key}: ${[...job.executionIds].join(', ')}`);
    assert.deepEqual(duplicated, [], 'each idempotency key names one execution');
    for (const kind of Object.keys(STEPS) as Kind[]) {
      const listed = await api('GET', `/workflows/executions?workflowId=${kind}&limit=200`);
      assert.equal(listed.body.total, EXECUTIONS / 2, `executions of ${kind}: ${JSON.stringify(listed.body.total)}`);
    }

    const finals = new Map<string, Record<string, unknown>>();
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while (finals.size < jobs.length && Date.now() < deadline) {
      for (const job of jobs) {
        const id = [...job.executionIds][0];
        if (finals.has(id)) continue;
        const res = await api('GET', `/workflows/executions/${id}`).catch(() => undefined);
        if (res?.status === 200 && !['running', 'waiting', 'pending'].includes(String(res.body.status))) finals.set(id, res.body);
      }
      if (finals.size < jobs.length) await sleep(2_000);
    }
    const outcomes = jobs.map((job) => {
      const id = [...job.executionIds][0];
      const body = finals.get(id);
      return { key: job.key, id, status: body?.status ?? 'unfinished', error: body?.error, outputs: body?.outputs };
    });
    const notCompleted = outcomes.filter((outcome) => outcome.status !== 'completed');
    assert.deepEqual(notCompleted, [], 'every accepted execution completed');
    for (const [i, job] of jobs.entries()) {
      const [first, second] = STEPS[job.kind];
      assert.deepEqual(outcomes[i].outputs, { first, second }, `${job.key} outputs`);
      for (const stepId of STEPS[job.kind])
        assert.ok((calls.get(`${outcomes[i].id}/${stepId}`) ?? 0) >= 1, `${job.key} (${outcomes[i].id}) made its ${stepId} call`);
    }
  });
});
