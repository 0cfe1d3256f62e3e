/**
 * Issue 27's (and 46's) scale-out targets, from one run of the production shape (startup/cluster, what
 * `npm run start:cluster` starts: embedded PostgreSQL, the production Temporal server on it,
 * API replicas behind the front, 3 worker processes; headless, no Web UI) in a temp dir, its
 * processes running the compiled server as the production image does (./compiled-build.ts):
 * 400 light tasks finish in at most the time bare Temporal needs for 400 activities on the
 * same server, in two shapes:
 * (a) one execution fanning out 400 calls: a definition whose single http-request step has
 *     `forEach` over 400 elements, `parallel: true, maxConcurrency: 400` (a fan-out's calls are
 *     ordinary activities, side by side: docs/architecture.md, "Light steps"), against one bare
 *     workflow starting 400 activities (the same call) at once and awaiting them all;
 * (b) 400 one-step executions (an http-request step without a timeout: a light step, i.e. a
 *     local activity) against 400 one-activity workflows; both sides start them 50 at a time
 *     and each run's end is awaited apart (bare: the handle's result; project: one held
 *     `GET /workflows/executions/{id}?wait=30s` per execution).
 * Each figure is the time from the first start to the last result. The calls go to a local
 * server that answers `{"ok":true}` at once.
 *
 * Fairness: the bare side runs on the same server and namespace, on its own task queue, with
 * 3 worker processes of its own (scale-out-bare-worker.ts, compiled alike, TS SDK defaults, the
 * workflow bundle built once here), as the project has 3 worker processes: separate processes is how
 * either would scale out, and each side's workers then compete for the 2 cores the same way.
 * The bare client starts from this process (a gRPC client, no HTTP), the project's client is
 * a process of its own (end-to-end-client.ts) talking to the front. Both sides' workers stay
 * up the whole run, idle while the other side is measured. One warm-up of each shape on each
 * side first (`warmUp` wide / runs: the project's workers bundle their workflow code at start,
 * and the first runs fill caches and pools), then `rounds` rounds of the four measurements, bare
 * first in one round and the project first in the next, so background load on this shared
 * machine hits both sides alike; the targets read the median of the per-round ratios. Beside the
 * times the bench prints the CPU each component spent per run (Temporal server, PostgreSQL, each
 * side's workers, the API replicas, …, from /proc): where the time goes.
 *
 * Issue 46's targets, in the same run: (a) and (b) at most 1.0x bare; the project's workers' CPU
 * per one-step run of (b) at most 1.2x the bare workers' per one-activity workflow; the API
 * replicas' CPU per start of (b) (the execute and its held read) printed beside.
 *
 * Settings given to the cluster (appEnv), each the operator's to set:
 * - WORKFLOW_MAX_PARALLELISM=400 and WORKFLOW_MAX_ACTIVITIES_IN_FLIGHT=400: the defaults (50 and
 *   20) would cap the fan-out's width below the bare workflow's 400 at once; both allow up to
 *   10,000, so 400 is allowed and the fan-out runs as wide as the bare side.
 * - EVENTS_MAX_STREAMS_PER_USER / _PER_ORGANIZATION=1000: one user holds 400 waiting reads at
 *   once (each takes a stream slot; defaults 10 and 50 per replica), a fairness cap this bench
 *   does not measure.
 * - EGRESS_ALLOW_CIDRS=127.0.0.1/32: the calls go to loopback, closed by default.
 *
 * Without the production Temporal server (scripts/install-temporal-server) the bench says so
 * and skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mintToken } from '../api/http/auth';
import { childProcessEnvironment } from '../config/config';
import { createLogger } from '../config/logger';
import type { Cluster } from '../startup/cluster/cluster';
import { temporalServerTools } from '../startup/cluster/temporal-server';
import { chain, step, trigger } from '../test/support/definitions';
import { startClient } from './client-process';
import { compileForBench, type CompiledServer } from './compiled-build';
import { cpuByComponent } from './cpu-meter';
import type { Completion } from './end-to-end-client';
import { limiter, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const nameOf = (tasks: number) =>
  `scale out on the production shape (start:cluster, 3 workers): ${tasks} light tasks, bare Temporal beside this project`;
const WORKERS = 3;
/**
 * 2 API replicas: what `npm run start:cluster` starts by default (API_REPLICAS), the shape the
 * target names. On 2 cores a second replica adds no CPU, but the 400 executes and 400 waiting
 * reads of (b) are spread over two event loops, as a load balancer would spread them.
 */
const API_REPLICAS = 2;
/** Starts in flight at once, on both sides (the rest queue); each run's end is awaited apart. */
const START_CONCURRENCY = 50;
const WAIT: Completion = { kind: 'wait', seconds: 30 };
const PUBLISHED =
  "Windmill's published multi-worker scenario, 400 lightweight tasks: Windmill 19.7 s, Hatchet 35.8 s, Temporal 39.0 s (their hardware and setup, not this machine)";

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
const mean = (values: number[]): number => sum(values) / values.length;
/** The middle value (the mean of the middle two of an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
const seconds = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

/** Who spends the CPU: the processes of this run, by what they are. */
const COMPONENTS = [
  'Temporal server',
  'PostgreSQL',
  'project workers',
  'API replicas',
  'project client',
  'bare workers',
  'this process (front, bare client)',
] as const;
type Component = (typeof COMPONENTS)[number];

function componentOf(pid: number, cmdline: string): Component | undefined {
  if (pid === process.pid) return 'this process (front, bare client)';
  if (cmdline.includes('temporal-server')) return 'Temporal server';
  if (cmdline.includes('start-worker')) return 'project workers';
  if (cmdline.includes('start-api')) return 'API replicas';
  if (cmdline.includes('end-to-end-client')) return 'project client';
  if (cmdline.includes('scale-out-bare-worker')) return 'bare workers';
  if (cmdline.includes('postgres')) return 'PostgreSQL';
  return undefined;
}

/** Runs `work` and says how many CPU seconds each component spent meanwhile. */
async function withCpu<T>(work: () => Promise<T>): Promise<{ result: T; cpu: Map<Component, number> }> {
  const before = cpuByComponent(componentOf);
  const result = await work();
  const after = cpuByComponent(componentOf);
  const cpu = new Map<Component, number>();
  for (const component of COMPONENTS) cpu.set(component, ((after.get(component) ?? 0) - (before.get(component) ?? 0)) / 1000);
  return { result, cpu };
}

/** `total = component s, …` per run (the sums over `runs`; components that spent at least 0.05 s). */
const cpuLine = (cpu: Map<Component, number>, runs: number): string =>
  `${round(sum([...cpu.values()]) / runs, 1)} = ` +
  COMPONENTS.filter((component) => (cpu.get(component) ?? 0) / runs >= 0.05)
    .map((component) => `${component} ${round((cpu.get(component) ?? 0) / runs, 1)}`)
    .join(', ');

/** The server the calls go to: answers `{"ok":true}` at once. */
async function answeringServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Bare Temporal: WORKERS worker processes on a task queue of their own, and a client in this process. */
async function bareSide(address: string, namespace: string, dir: string, url: string, compiled: string) {
  const taskQueue = `bare-scale-${randomUUID().slice(0, 8)}`;
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'bare-temporal-workflows.ts'), logger });
  const codePath = path.join(dir, 'bare-workflows.js');
  await writeFile(codePath, code);
  const children: ChildProcess[] = [];
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await connection.close();
  };
  try {
    for (let i = 0; i < WORKERS; i++) {
      const child = spawn(
        process.execPath,
        [path.join(compiled, 'bench', 'scale-out-bare-worker.js'), address, namespace, taskQueue, codePath],
        { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
      );
      children.push(child);
    }
    await Promise.all(
      children.map(
        (child, i) =>
          new Promise<void>((resolve, reject) => {
            child.once('message', () => resolve());
            child.once('exit', (exitCode) => reject(new Error(`bare worker ${i + 1} exited (${exitCode}) before it was ready`)));
          }),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const workflowId = () => `${taskQueue}-${randomUUID()}`;
  return {
    /** (a): one workflow, `count` activities at once; seconds from its start to its result. */
    async fanOut(count: number): Promise<number> {
      const t0 = process.hrtime.bigint();
      await client.workflow.execute('parallelActivities', { taskQueue, workflowId: workflowId(), args: [count, url] });
      return seconds(t0);
    },
    /** (b): `count` one-activity workflows, START_CONCURRENCY starts at a time; seconds from the first start to the last result. */
    async oneEach(count: number): Promise<{ seconds: number; startsSeconds: number }> {
      const starting = limiter(START_CONCURRENCY);
      const t0 = process.hrtime.bigint();
      let startsSeconds = 0;
      await Promise.all(
        Array.from({ length: count }, async () => {
          const handle = await starting(() => client.workflow.start('oneActivity', { taskQueue, workflowId: workflowId(), args: [url] }));
          startsSeconds = Math.max(startsSeconds, seconds(t0));
          await handle.result();
        }),
      );
      return { seconds: seconds(t0), startsSeconds };
    },
    stop,
  };
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const tasks = sized(options, 400, 40);
  /**
   * Measured rounds (after one warm-up); each round runs the four measurements once. Four: the targets' median of
   * the per-round ratios then sets the highest and the lowest aside (of two rounds it was their mean), and each
   * side runs first in two of them.
   */
  const rounds = sized(options, 4, 1);
  /** Size of the warm-up runs (the fan-out's width, the number of one-step runs): enough to fill pools and caches. */
  const warmUp = sized(options, 40, 10);
  try {
    temporalServerTools();
  } catch (error) {
    return { name: nameOf(tasks), figures: { skipped: (error as Error).message } };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-scale-out-'));
  const target = await answeringServer();
  const client = startClient();
  const secret = randomBytes(32).toString('hex');
  let compiled: CompiledServer | undefined;
  let cluster: Cluster | undefined;
  let bare: Awaited<ReturnType<typeof bareSide>> | undefined;
  try {
    // Both sides run compiled, as the production image runs the server (./compiled-build.ts).
    compiled = await compileForBench();
    const clusterModule = pathToFileURL(path.join(compiled.dir, 'startup', 'cluster', 'cluster.js')).href;
    const { startCluster } = (await import(clusterModule)) as typeof import('../startup/cluster/cluster');
    const clusterStarted = process.hrtime.bigint();
    cluster = await startCluster({
      // The temp dir itself: as root, embedded PostgreSQL opens this folder (not its parents) to the postgres user.
      dir,
      apiReplicas: API_REPLICAS,
      workers: WORKERS,
      port: 0,
      temporalPort: 0,
      namespace: 'default',
      maxBodyBytes: 1024 * 1024,
      logger: createLogger('error'),
      appEnv: {
        ...childProcessEnvironment(),
        DATA_DIR: dir,
        AUTH_JWT_SECRET: secret,
        CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        BOOTSTRAP_ADMINS: '1:1',
        LOG_LEVEL: 'warn',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        WORKFLOW_MAX_PARALLELISM: String(tasks),
        WORKFLOW_MAX_ACTIVITIES_IN_FLIGHT: String(tasks),
        EVENTS_MAX_STREAMS_PER_USER: '1000',
        EVENTS_MAX_STREAMS_PER_ORGANIZATION: '1000',
      },
    });
    const clusterSeconds = seconds(clusterStarted);
    const front = new URL(cluster.frontUrl);
    const token = await mintToken({ userId: '1', organizationId: '1', userType: 'person', secret: Buffer.from(secret) });
    client.target = { port: Number(front.port), token };
    const publish = async (key: string, doc: Record<string, unknown>) => {
      const res = await fetch(`${cluster!.frontUrl}/workflows/definitions/${key}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: key, path: '/bench', ...doc }),
      });
      if (res.status !== 200 && res.status !== 201) throw new Error(`publish ${key}: ${res.status} ${await res.text()}`);
      return key;
    };
    // (a) start ──▶ call (forEach over `width` elements, all at once); (b) start ──▶ call (one light call).
    const fanOutOf = (width: number) =>
      publish(`scale-fan-out-${width}`, {
        variables: { list: { initialValue: Array.from({ length: width }, (_, i) => i) } },
        steps: chain(
          trigger(),
          step(
            'call',
            'http-request',
            { url: target.url },
            { forEach: { expression: '${{ variables.list }}', parallel: true, maxConcurrency: width } },
          ),
        ),
      });
    const fanOut: Record<number, string> = { [warmUp]: await fanOutOf(warmUp), [tasks]: await fanOutOf(tasks) };
    const one = await publish('scale-one', { steps: chain(trigger(), step('call', 'http-request', { url: target.url })) });

    bare = await bareSide(cluster.temporalAddress, 'default', dir, target.url, compiled.dir);
    const projectFanOut = async (width: number) =>
      (await client.round({ workflowId: fanOut[width], total: 1, concurrency: 1, completion: WAIT })).seconds;
    const projectOneEach = async (count: number) => {
      const result = await client.round({
        workflowId: one,
        total: count,
        concurrency: count,
        startConcurrency: START_CONCURRENCY,
        completion: WAIT,
      });
      return { seconds: result.seconds, startsSeconds: result.startsSeconds };
    };

    // One warm-up of each shape on each side (the project's workers are ready once its first run ends).
    const warmUpStarted = process.hrtime.bigint();
    await projectFanOut(warmUp);
    await projectOneEach(warmUp);
    await bare.fanOut(warmUp);
    await bare.oneEach(warmUp);
    const warmUpSeconds = seconds(warmUpStarted);

    const measured = { bareA: [] as number[], projectA: [] as number[], bareB: [] as number[], projectB: [] as number[] };
    const starts = { bare: [] as number[], project: [] as number[] };
    const cpu = {} as Record<keyof typeof measured, Map<Component, number>>;
    /** Each round's CPU s by component, per measurement (the per-round ratios the targets take the median of). */
    const cpuRounds = { bareA: [], projectA: [], bareB: [], projectB: [] } as Record<keyof typeof measured, Array<Map<Component, number>>>;
    const load = [os.loadavg()[0]];
    const sideBare = bare;
    const cpuOf = async <T>(into: keyof typeof measured, work: () => Promise<T>): Promise<T> => {
      const { result, cpu: spent } = await withCpu(work);
      cpuRounds[into].push(new Map(spent));
      for (const [component, value] of spent) spent.set(component, value + (cpu[into]?.get(component) ?? 0));
      cpu[into] = spent;
      return result;
    };
    const measurements = {
      bareA: async () => measured.bareA.push(await cpuOf('bareA', () => sideBare.fanOut(tasks))),
      projectA: async () => measured.projectA.push(await cpuOf('projectA', () => projectFanOut(tasks))),
      bareB: async () => {
        const result = await cpuOf('bareB', () => sideBare.oneEach(tasks));
        measured.bareB.push(result.seconds);
        starts.bare.push(result.startsSeconds);
      },
      projectB: async () => {
        const result = await cpuOf('projectB', () => projectOneEach(tasks));
        measured.projectB.push(result.seconds);
        starts.project.push(result.startsSeconds);
      },
    };
    for (let r = 0; r < rounds; r++) {
      // Bare first in even rounds, the project first in odd ones: neither side always runs after the other.
      const order: Array<keyof typeof measured> =
        r % 2 === 0 ? ['bareA', 'projectA', 'bareB', 'projectB'] : ['projectA', 'bareA', 'projectB', 'bareB'];
      for (const name of order) await measurements[name]();
    }
    load.push(os.loadavg()[0]);

    const a = { bare: sum(measured.bareA), project: sum(measured.projectA) };
    const b = { bare: sum(measured.bareB), project: sum(measured.projectB) };
    const list = (values: number[]) => values.map((value) => round(value, 2)).join(' ');
    // Issue 46's targets read the median of the per-round ratios (each round's two sides ran minutes apart at most).
    const ratioA = median(measured.projectA.map((project, i) => project / measured.bareA[i]));
    const ratioB = median(measured.projectB.map((project, i) => project / measured.bareB[i]));
    // CPU ms per one-step run of (b): each side's workers, and the API replicas (one execute and its held read per run).
    const msPerRun = (side: 'bareB' | 'projectB', component: Component) =>
      cpuRounds[side].map((spent) => ((spent.get(component) ?? 0) * 1000) / tasks);
    const workerMs = { bare: msPerRun('bareB', 'bare workers'), project: msPerRun('projectB', 'project workers') };
    const apiMs = msPerRun('projectB', 'API replicas');
    const workerRatio = median(workerMs.project.map((project, i) => project / workerMs.bare[i]));
    return {
      name: nameOf(tasks),
      figures: {
        shape: `production Temporal server ${path.basename(path.dirname(temporalServerTools().server))} on embedded PostgreSQL, ${API_REPLICAS} API replicas behind the front, ${WORKERS} worker processes (bare: ${WORKERS} worker processes of its own)`,
        'cluster start s | warm-up s': `${round(clusterSeconds, 1)} | ${round(warmUpSeconds, 1)}`,
        ...(rounds > 1
          ? {
              '(a) per round s: bare | project': `${list(measured.bareA)} | ${list(measured.projectA)}`,
              '(b) per round s: bare | project': `${list(measured.bareB)} | ${list(measured.projectB)}`,
            }
          : {}),
        [`(b) last start accepted after s: bare | project`]: `${list(starts.bare)} | ${list(starts.project)}`,
        [`CPU s per run of (a), bare`]: cpuLine(cpu.bareA, rounds),
        [`CPU s per run of (a), project`]: cpuLine(cpu.projectA, rounds),
        [`CPU s per run of (b), bare`]: cpuLine(cpu.bareB, rounds),
        [`CPU s per run of (b), project`]: cpuLine(cpu.projectB, rounds),
        'worker CPU ms per one-step run of (b): bare | project': `${list(workerMs.bare)} | ${list(workerMs.project)}`,
        'API replicas CPU ms per start of (b) (execute and its held read)': list(apiMs),
        'machine load (1-min average, 2 cores): before | after': load.map((value) => round(value, 1)).join(' | '),
        published: PUBLISHED,
      },
      table: {
        columns: ['bare Temporal s', 'this project s', 'project / bare'],
        // Means per run over the rounds; the ratio is the median of the rounds' ratios.
        rows: [
          [`(a) one run fanning out ${tasks} calls`, [round(a.bare / rounds, 2), round(a.project / rounds, 2), round(ratioA, 2)]],
          [
            `(b) ${tasks} one-step runs (${START_CONCURRENCY} starts at a time)`,
            [round(b.bare / rounds, 2), round(b.project / rounds, 2), round(ratioB, 2)],
          ],
          [
            `worker CPU ms per one-step run of (b)`,
            [round(mean(workerMs.bare), 2), round(mean(workerMs.project), 2), round(workerRatio, 2)],
          ],
        ],
      },
      targets: [
        {
          label: `(a) one execution fanning out ${tasks} calls <= 1.0x bare one workflow with ${tasks} activities (${round(a.project / rounds, 2)} s vs ${round(a.bare / rounds, 2)} s: ${round(ratioA, 2)}x)`,
          met: ratioA <= 1,
        },
        {
          label: `(b) ${tasks} one-step executions <= 1.0x bare ${tasks} one-activity workflows (${round(b.project / rounds, 2)} s vs ${round(b.bare / rounds, 2)} s: ${round(ratioB, 2)}x)`,
          met: ratioB <= 1,
        },
        {
          label: `worker CPU per one-step run <= 1.2x bare workers' per one-activity workflow (${round(mean(workerMs.project), 2)} ms vs ${round(mean(workerMs.bare), 2)} ms: ${round(workerRatio, 2)}x; API replicas ${round(mean(apiMs), 2)} ms per start)`,
          met: workerRatio <= 1.2,
        },
      ],
    };
  } finally {
    client.stop();
    await bare?.stop();
    await cluster?.stop();
    await target.close();
    await rm(dir, { recursive: true, force: true });
    await compiled?.remove();
  }
}
