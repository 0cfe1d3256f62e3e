/**
 * A worker killed (SIGKILL) while two activity steps without a retry policy wait on their
 * calls: another worker runs both calls again and the run completes. One step has the
 * default timeout (noticed by its 15 s heartbeat timeout), the other a 3 s timeout (its
 * heartbeat timeout is shortened below the 8 s StartToClose backstop, so the lost worker
 * shows as a stopped heartbeat, not as the step overrunning). A step that overruns its
 * timeout on a live worker still fails, once. Light steps are off: both run as activities.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { LOST_WORKER_RERUN_PATCH } from '../../workflows/execution-effects';
import { chain, step, trigger } from '../support/definitions';
import { useLocalServer } from '../support/local-server';
import { spawnScript } from '../support/process';
import { createWorker, execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: activity steps on a lost worker', function () {
  this.timeout(180_000);
  const { env, org } = useExecEnv({ withWorker: false, limits: { lightStepMaxTimeoutMs: 0 } });
  const calls = new Map<string, number>();
  /** Requests held unanswered: the killed worker dies waiting on them, the overrunning step times out on them. */
  const held = new Set<string>(['slow', 'short', 'overrun']);
  const arrived = new Map<string, () => void>();
  const arrival = (name: string) => new Promise<void>((resolve) => arrived.set(name, resolve));
  const heldArrivals = { slow: arrival('slow'), short: arrival('short') };
  let child: ChildProcess | undefined;

  const server = useLocalServer((req, res) => {
    const name = /\/call\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
    calls.set(name, (calls.get(name) ?? 0) + 1);
    if (held.has(name)) return arrived.get(name)?.();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name }));
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

  const call = (name: string, extra: Record<string, unknown> = {}) =>
    step(name, 'http-request', { url: `${server.base}/call/${name}` }, extra);

  it('runs the calls of a killed worker again on another worker, though the steps have no retry policy', async () => {
    await publish(env, org, {
      name: 'Lost calls',
      key: 'lost-calls',
      steps: [trigger(), { ...call('slow'), dependsOn: ['start'] }, { ...call('short', { timeout: '3s' }), dependsOn: ['start'] }],
      outputs: { slow: '${{ steps.slow.outputs.body.name }}', short: '${{ steps.short.outputs.body.name }}' },
    });

    child = await spawnWorker();
    const id = await execute(env, org, 'lost-calls');
    await Promise.all([heldArrivals.slow, heldArrivals.short]);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    held.delete('slow');
    held.delete('short');

    const worker = await createWorker(env);
    const done = await worker.runUntil(() => waitFor(env, org, id, finished, '', 90_000));
    assert.deepEqual([done.status, done.outputs, done.error], ['completed', { slow: 'slow', short: 'short' }, undefined]);
    // Each call the killed worker had in flight was made again, once.
    assert.deepEqual([calls.get('slow'), calls.get('short')], [2, 2]);
    // The re-runs are marked in the history (runs from before the fix replay without them: the env's stop replays every history).
    const history = await env.temporal.client.workflow.getHandle(id).fetchHistory();
    const patches = (history.events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      return (marker.details?.['patch-data']?.payloads ?? []).map((payload) => Buffer.from(payload.data ?? []).toString());
    });
    assert.ok(
      patches.some((data) => data.includes(LOST_WORKER_RERUN_PATCH)),
      `the re-run is recorded under its patch: ${JSON.stringify(patches)}`,
    );
  });

  it('still fails a step that overruns its timeout on a live worker, without running it again', async () => {
    await publish(env, org, {
      name: 'Overrun',
      key: 'overrun',
      steps: chain(trigger(), call('overrun', { timeout: '3s' })),
    });
    const worker = await createWorker(env);
    const done = await worker.runUntil(async () => waitFor(env, org, await execute(env, org, 'overrun'), finished, '', 60_000));
    assert.deepEqual(
      [done.status, done.error],
      ['failed', { type: 'STEP_FAILED', stepId: 'overrun', message: 'activity StartToClose timeout' }],
    );
    assert.equal(calls.get('overrun'), 1);
  });
});
