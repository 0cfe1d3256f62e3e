/**
 * What a stub sees and what it may return: the retry attempt it is on (with
 * and without jitter), the two handler forms (`(ctx)` and the compatible
 * engine's `(step, ctx)`), and the results both engines' stubs return.
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { chain, step, trigger } from '../support/definitions';

function doc(...steps: Array<Record<string, unknown>>): Record<string, unknown> {
  return { name: 'test', path: '/kit', steps };
}

describe('kit stubs: attempts', () => {
  for (const [label, retryPolicy] of [
    ['a policy without jitter (retried by the host, as Temporal does)', { maxAttempts: 3, initialInterval: '10m' }],
    [
      'the compatible engine’s policy with jitter (retried by the engine)',
      { max_attempts: 3, initial_interval: '2s', backoff_strategy: 'exponential', jitter: 0.3 },
    ],
  ] as const) {
    it(`counts attempts up under ${label}`, async () => {
      //   start ─▶ flaky(stub, 3 attempts)
      const attempts: number[] = [];
      const result = await runWorkflow({
        definition: doc(...chain(trigger(), step('flaky', 'acme-flaky', {}, { errorHandling: { retryPolicy } }))),
        stubs: {
          'acme-flaky': (ctx) => {
            attempts.push(ctx.attempt);
            if (ctx.attempt < 3) throw new Error('try again');
            return { ok: true };
          },
        },
      });
      assert.equal(result.status, 'completed', JSON.stringify(result.error));
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.deepEqual(result.steps.flaky.outputs, { ok: true });
    });
  }

  it('stops at the last attempt under jitter and fails with the last error', async () => {
    //   start ─▶ down(stub, 2 attempts, always fails)
    const attempts: number[] = [];
    const result = await runWorkflow({
      definition: doc(
        ...chain(
          trigger(),
          step('down', 'acme-down', {}, { error_handling: { retry_policy: { max_attempts: 2, initial_interval: '1s', jitter: 0.5 } } }),
        ),
      ),
      stubs: {
        'acme-down': (ctx) => {
          attempts.push(ctx.attempt);
          throw new Error(`down on attempt ${ctx.attempt}`);
        },
      },
    });
    assert.equal(result.status, 'failed');
    assert.deepEqual(attempts, [1, 2]);
    assert.equal(result.steps.down.error?.message, 'down on attempt 2');
  });
});
