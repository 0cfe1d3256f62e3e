/**
 * A worker killed (SIGKILL) in the middle of a 40-step run of light steps:
 * another worker finishes the run, and no step whose call had completed is
 * called again. Temporal records local activity results only when the
 * workflow task completes, which the kill prevents; the new worker replays the
 * steps and answers the completed ones from light_step_results. (It also guards the first task's skipped read:
 * the new worker's task is not a first task, so its steps look for their stored results.)
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chain, step, trigger } from '../support/definitions';
import { useLocalServer } from '../support/local-server';
import { spawnScript } from '../support/process';
import { createWorker, execute, finished, publish, useExecEnv, waitFor } from './support';

const STEPS = 40;
/** The step whose request the killed worker is waiting on. */
const HELD = 20;

describe('executions API: light steps on a lost worker', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv({ withWorker: false });
  const calls = new Map<number, number>();
  let holding = true;
  let heldRequestArrived: () => void;
  const heldRequest = new Promise<void>((resolve) => (heldRequestArrived = resolve));
  let child: ChildProcess | undefined;

  const server = useLocalServer((req, res) => {
    const n = Number(/\/step\/(\d+)$/.exec(req.url ?? '')?.[1]);
    calls.set(n, (calls.get(n) ?? 0) + 1);
    if (n === HELD && holding) return heldRequestArrived(); // never answered: the worker dies waiting
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n }));
  });
  after(() => child?.kill('SIGKILL'));

  /** `npm run start:worker` as an operator runs it, on this file's task queue, database and Temporal. */
  const spawnWorker = async (): Promise<ChildProcess> => {
    const worker = spawnScript('bin/start-worker.ts', {
      env: {
        DATABASE_URL: (env.db.options as { url: string }).url,
        TEMPORAL_ADDRESS: env.temporal.address,
        TEMPORAL_NAMESPACE: env.temporal.namespace ?? 'default',
        TEMPORAL_TASK_QUEUE: env.taskQueue,
        CONFIG_ENCRYPTION_KEY: env.encryptionKey.toString('hex'),
        EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
      },
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('worker started')) resolve();
      };
      worker.stdout?.on('data', seen);
      worker.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      worker.on('exit', (code) => reject(new Error(`the worker exited (${code}) before it started:\n${output}`)));
    });
    return worker;
  };

  it('finishes on another worker without calling a completed step again', async () => {
    const steps = Array.from({ length: STEPS }, (_, i) =>
      step(`s${i + 1}`, 'http-request', { url: `${server.base}/step/${i + 1}` }, { timeout: '5s' }),
    );
    await publish(env, org, {
      name: 'Light chain',
      key: 'light-chain',
      steps: chain(trigger(), ...steps),
      outputs: { last: `\${{ steps.s${STEPS}.outputs.body.n }}` },
    });

    child = await spawnWorker();
    const id = await execute(env, org, 'light-chain');
    await heldRequest;
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    holding = false;

    const worker = await createWorker(env);
    const done = await worker.runUntil(() => waitFor(env, org, id, finished, '', 60_000));
    assert.deepEqual([done.status, done.outputs], ['completed', { last: STEPS }]);

    for (let n = 1; n <= STEPS; n++) {
      // The held call never completed: the new worker makes it again. Every other call was made once.
      assert.equal(calls.get(n), n === HELD ? 2 : 1, `step ${n} was called ${calls.get(n)} times`);
    }
  });
});
