/**
 * What a step record keeps of its plugin calls (workflows/engine/runtime/attempts.ts): the config as
 * resolved with every secret-reading string masked, capped; the attempts of a retried call, the engine's
 * with times and errors and Temporal's (reported by the host) by number; and the error log line of a
 * failed step.
 *
 *   start ─▶ call (http, a secret in a header and in a list) ─▶ flaky (fails twice)
 */
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import {
  PLUGIN_ATTEMPT_DETAIL,
  PLUGIN_LOGS_DETAIL,
  RECORDED_ATTEMPTS_MAX,
  RECORDED_CONFIG_MAX_BYTES,
  type ActivityCall,
} from '../../workflows/engine';
import { chain, step, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

const manual = trigger();

describe('step records: resolved config and attempts (pure, fake effects)', () => {
  it('records the config as resolved, each string that reads a secret masked, and never a secret', async () => {
    const { ctx, calls } = await run(
      {
        steps: [
          manual,
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: {
              url: 'https://x/${{ workflow.inputs.n }}',
              headers: { Authorization: 'Bearer ${{ secrets.TOKEN }} for ${{ workflow.inputs.n }}', 'x-all': '${{ secrets.TOKEN }}' },
              body: { list: ['${{ secrets.OTHER }}', 'plain'] },
            },
            dependsOn: ['start'],
          },
        ],
      },
      { n: 4 },
      { activities: { 'http-request': () => ({ status: 'success', outputs: {} }) } },
    );
    assert.deepEqual(ctx.steps.call.config, {
      url: 'https://x/4',
      headers: { Authorization: 'Bearer <redacted> for 4', 'x-all': '<redacted>' },
      body: { list: ['<redacted>', 'plain'] },
    });
    // The call itself still carries the references for the activity to resolve.
    assert.equal((calls[0].config.headers as Record<string, string>)['x-all'], '${{ secrets.TOKEN }}');
    assert.equal(ctx.steps.call.attempts, undefined, 'a single attempt lists none');
  });

  it('replaces a config over its cap by a marker', async () => {
    const big = 'x'.repeat(RECORDED_CONFIG_MAX_BYTES + 10);
    const { ctx } = await run(
      { steps: chain(manual, step('call', 'http-request', { url: 'https://x', body: big })) },
      {},
      { activities: { 'http-request': () => ({ status: 'success', outputs: {} }) } },
    );
    assert.equal(ctx.steps.call.config?._truncated, true);
    assert.ok(Number(ctx.steps.call.config?.configBytes) > RECORDED_CONFIG_MAX_BYTES);
  });

  it("lists the engine's attempts with their errors, and Temporal's earlier ones by number", async () => {
    let engineCalls = 0;
    const { ctx, outcome } = await run(
      {
        steps: chain(
          manual,
          step(
            'engine',
            'http-request',
            { url: 'https://x/engine' },
            { errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '10ms', jitter: 0.5 } } },
          ),
          step('temporal', 'http-request', { url: 'https://x/temporal' }),
        ),
      },
      {},
      {
        activities: {
          'http-request': (call: ActivityCall) => {
            if (call.config.url === 'https://x/engine') {
              engineCalls += 1;
              if (engineCalls < 3) throw ApplicationFailure.retryable('HTTP 503 Service Unavailable', 'HTTP_5XX');
              return { status: 'success', outputs: {} };
            }
            // Temporal retried twice before this answer (the worker reports its attempt number).
            return { status: 'success', outputs: {}, attempt: 3 };
          },
        },
      },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const engine = ctx.steps.engine.attempts ?? [];
    assert.deepEqual(
      engine.map((a) => [a.attempt, a.status, a.error?.code]),
      [
        [1, 'failed', 'HTTP_5XX'],
        [2, 'failed', 'HTTP_5XX'],
        [3, 'completed', undefined],
      ],
    );
    assert.ok(engine.every((a) => a.startedAt && a.completedAt && a.startedAt <= a.completedAt));
    assert.deepEqual(
      (ctx.steps.temporal.attempts ?? []).map((a) => [a.attempt, a.status, a.startedAt !== undefined]),
      [
        [1, 'failed', false],
        [2, 'failed', false],
        [3, 'completed', true],
      ],
    );
  });

  it(`lists at most ${RECORDED_ATTEMPTS_MAX} attempts of one run, counting the others`, async () => {
    // Each item's call answers on Temporal's third attempt: three attempts per item, listed until the cap.
    const items = 40;
    const { ctx, outcome } = await run(
      {
        steps: chain(manual, step('each', 'http-request', { url: 'https://x/each' }, { forEach: { expression: 'workflow.inputs.list' } })),
      },
      { list: Array.from({ length: items }, (_, i) => i) },
      { activities: { 'http-request': () => ({ status: 'success', outputs: {}, attempt: 3 }) } },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.equal(ctx.steps.each.attempts?.length, RECORDED_ATTEMPTS_MAX);
    assert.equal(ctx.steps.each.attemptsOmitted, items * 3 - RECORDED_ATTEMPTS_MAX);
  });

  it('writes an error log line for a failed step, with the attempt Temporal reported', async () => {
    const { ctx, logs, outcome } = await run(
      { steps: chain(manual, step('boom', 'http-request', { url: 'https://x' })) },
      {},
      {
        activities: {
          'http-request': () => {
            // As the worker's failure arrives: the cause carries the plugin's log lines and the attempt that failed.
            const cause = ApplicationFailure.create({
              message: 'HTTP 500 Internal Server Error',
              type: 'HTTP_5XX',
              details: [{ [PLUGIN_LOGS_DETAIL]: [], [PLUGIN_ATTEMPT_DETAIL]: 2 }],
            });
            throw Object.assign(new Error('activity failed'), { cause });
          },
        },
      },
    );
    assert.equal(outcome.status, 'failed');
    assert.deepEqual(
      logs.filter((l) => l.stepId === 'boom').map((l) => [l.level, l.message]),
      [['error', 'HTTP_5XX: HTTP 500 Internal Server Error']],
    );
    assert.deepEqual(
      (ctx.steps.boom.attempts ?? []).map((a) => [a.attempt, a.status, a.error?.code]),
      [
        [1, 'failed', undefined],
        [2, 'failed', 'HTTP_5XX'],
      ],
    );
  });
});
