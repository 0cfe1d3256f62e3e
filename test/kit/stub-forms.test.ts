/**
 * What a stub sees and what it may return: the retry attempt it is on (with
 * and without jitter), the two handler forms (`(ctx)` and the compatible
 * engine's `(step, ctx)`), and the results both engines' stubs return.
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { chain, doc, step, trigger } from '../support/definitions';

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
        definition: doc(chain(trigger(), step('flaky', 'acme-flaky', {}, { errorHandling: { retryPolicy } }))),
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
        chain(
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

describe('kit stubs: the two handler forms and the result shapes', () => {
  //   start ─▶ lookup(acme-lookup) ─▶ notify(acme-notify)
  const definition = doc(
    chain(
      trigger(),
      step(
        'lookup',
        'acme-lookup',
        { url: 'https://users.example/${{ workflow.inputs.user }}' },
        { inputs: { user: '${{ workflow.inputs.user }}' } },
      ),
      step('notify', 'acme-notify', {}, { inputs: { name: '${{ steps.lookup.outputs.name }}' } }),
    ),
  );

  it("calls a handler written (step, ctx) as the compatible engine's guide writes it, and one written (ctx), with the same call", async () => {
    const seen: unknown[] = [];
    const result = await runWorkflow({
      definition,
      inputs: { user: 'ann' },
      stubs: {
        // eslint-disable-next-line @typescript-eslint/require-await -- written as that engine's guide writes stubs
        'acme-lookup': async (step, ctx) => {
          seen.push({ id: step.id, pluginType: step.pluginType, type: step.type, inputs: ctx.inputs, url: ctx.config.url });
          if (step.id !== 'lookup') throw new Error(`unexpected step ${step.id}`);
          return { outputs: { name: 'Ann' } };
        },
        'acme-notify': (ctx) => {
          seen.push({ stepId: ctx.stepId, id: ctx.step.id, inputs: ctx.inputs });
          return { delivered: true };
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(seen, [
      { id: 'lookup', pluginType: 'acme-lookup', type: 'module', inputs: { user: 'ann' }, url: 'https://users.example/ann' },
      { stepId: 'notify', id: 'notify', inputs: { name: 'Ann' } },
    ]);
    // `{ outputs }` and nothing else is that engine's result shape: not wrapped again.
    assert.deepEqual(result.steps.lookup.outputs, { name: 'Ann' });
    assert.deepEqual(result.steps.notify.outputs, { delivered: true });
  });

  it('reads each result shape as documented: {outputs}, {status…}, a plain object (with a numeric status too), nothing', async () => {
    const run = (returned: unknown) =>
      runWorkflow({
        definition,
        inputs: { user: 'ann' },
        stubs: { 'acme-lookup': () => returned as Record<string, unknown>, 'acme-notify': () => undefined },
      });
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [{ outputs: { name: 'Ann' } }, { name: 'Ann' }],
      [{ status: 'success', outputs: { outputs: { name: 'Ann' } } }, { outputs: { name: 'Ann' } }],
      [{ status: 'success', outputs: { name: 'Ann' }, activePorts: ['default'], metadata: { note: 'kept nowhere' } }, { name: 'Ann' }],
      [
        { status: 200, body: { name: 'Ann' } },
        { status: 200, body: { name: 'Ann' } },
      ],
      [
        { outputs: { name: 'Ann' }, statusCode: 200 },
        { outputs: { name: 'Ann' }, statusCode: 200 },
      ],
      [{ outputs: 'Ann' }, { outputs: 'Ann' }],
      [{ name: 'Ann' }, { name: 'Ann' }],
      [undefined, {}],
    ];
    for (const [returned, outputs] of cases) {
      const result = await run(returned);
      assert.equal(result.status, 'completed', `${JSON.stringify(returned)}: ${JSON.stringify(result.error)}`);
      assert.deepEqual(result.steps.lookup.outputs, outputs, JSON.stringify(returned));
    }

    const failed = await run({ status: 'failure', error: { message: 'no such user', code: 'USER_UNKNOWN', retryable: false } });
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.error, { type: 'USER_UNKNOWN', message: 'no such user', stepId: 'lookup' });

    const skipped = await run({ status: 'skipped' });
    assert.equal(skipped.status, 'completed', JSON.stringify(skipped.error));
    assert.equal(skipped.steps.lookup.status, 'skipped');
    assert.equal(skipped.steps.notify.status, 'skipped');

    const invalid = await run(['Ann']);
    assert.equal(invalid.status, 'failed');
    assert.equal(invalid.error?.type, 'STUB_INVALID_RESULT');
    assert.match(String(invalid.error?.message), /the stub of step "lookup" returned an array; return an object/);
  });
});
