/**
 * Keys the validator accepts, each shown to take effect (through the pure
 * engine with fake effects) or to be refused / warned about at publish
 * (issue 18 §1). The table in ./accepted-keys.ts maps every accepted key to a
 * test here or elsewhere; accepted-keys-enumeration.test.ts keeps it complete.
 */
import assert from 'node:assert/strict';
import { validateDefinition, type ActivityCall, type PluginResult } from '../../workflows/engine';
import { step, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

const ok = (outputs: Record<string, unknown>): PluginResult => ({ status: 'success', outputs });
const errorsOf = (doc: Record<string, unknown>) => validateDefinition({ name: 'x', ...doc }).errors;
const warningsOf = (doc: Record<string, unknown>) => validateDefinition({ name: 'x', ...doc }).warnings;

describe('accepted keys take effect (engine)', () => {
  it('loop.forEach runs the step once per element, naming the element itemName and its index indexName', async () => {
    const { outcome, calls } = await run(
      {
        steps: [
          trigger(),
          step(
            'call',
            'http-request',
            { url: 'https://x.test/${{ variables.ticket }}/${{ variables.i }}' },
            {
              loop: { forEach: '${{ workflow.inputs.tickets }}', itemName: 'ticket', indexName: 'i' },
              dependsOn: ['start'],
            },
          ),
        ],
        outputs: { count: '${{ steps.call.outputs.count }}', urls: '${{ steps.call.outputs.items }}' },
      },
      { tickets: ['a', 'b', 'c'] },
      { activities: { 'http-request': (call: ActivityCall) => ok({ url: call.config.url, got: call.inputs.ticket }) } },
    );
    assert.equal(outcome.status, 'completed');
    assert.equal(calls.length, 3);
    assert.deepEqual(outcome.outputs, {
      count: 3,
      urls: [
        { url: 'https://x.test/a/0', got: 'a' },
        { url: 'https://x.test/b/1', got: 'b' },
        { url: 'https://x.test/c/2', got: 'c' },
      ],
    });
  });

  it('loop.while runs the step while its condition holds, each run reading the previous output', async () => {
    const { outcome, calls } = await run(
      {
        steps: [
          trigger(),
          step(
            'page',
            'http-request',
            { url: 'https://x.test/${{ variables.n }}' },
            {
              loop: { while: 'variables.n == 0 || steps.page.outputs.more', indexName: 'n' },
              dependsOn: ['start'],
            },
          ),
        ],
        outputs: { count: '${{ steps.page.outputs.count }}' },
      },
      {},
      { activities: { 'http-request': (call: ActivityCall) => ok({ more: call.config.url !== 'https://x.test/2' }) } },
    );
    assert.deepEqual(outcome, { status: 'completed', outputs: { count: 3 } });
    assert.deepEqual(
      calls.map((call) => call.config.url),
      ['https://x.test/0', 'https://x.test/1', 'https://x.test/2'],
    );
  });

  it('loop.maxIterations caps a loop: more runs fail the step with LOOP_LIMIT_EXCEEDED', async () => {
    const { outcome, calls } = await run(
      {
        steps: [trigger(), step('spin', 'no-op', {}, { loop: { while: 'true', maxIterations: 4 }, dependsOn: ['start'] })],
      },
      {},
    );
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.error?.type, 'LOOP_LIMIT_EXCEEDED');
    assert.match(outcome.error?.message ?? '', /loop\.while of step "spin" is still true after 4 runs/);
    assert.equal(calls.length, 0);
    const long = await run(
      {
        steps: [
          trigger(),
          step('each', 'no-op', {}, { loop: { forEach: 'workflow.inputs.list', maxIterations: 2 }, dependsOn: ['start'] }),
        ],
      },
      { list: [1, 2, 3] },
    );
    assert.equal(long.outcome.error?.type, 'LOOP_LIMIT_EXCEEDED');
  });

  it('refuses a loop at publish without exactly one form, with forEach beside it, or with maxIterations over 1000', () => {
    const at = (loop: unknown, extra: Record<string, unknown> = {}) =>
      errorsOf({ steps: [trigger(), step('s', 'no-op', {}, { loop, dependsOn: ['start'], ...extra })] }).map(
        (e) => `${e.path} ${e.message}`,
      );
    assert.deepEqual(at({ maxIterations: 3 }), ['/steps/1/loop needs exactly one of forEach (an array expression) or while (a condition)']);
    assert.deepEqual(at({ while: 'true', forEach: '[]' }), [
      '/steps/1/loop needs exactly one of forEach (an array expression) or while (a condition)',
    ]);
    assert.deepEqual(at({ while: 'true', maxIterations: 1001 }), ['/steps/1/loop/maxIterations must be an integer from 1 to 1000']);
    assert.deepEqual(at({ forEach: '[]', itemName: 'a-b' }), [
      '/steps/1/loop/itemName must be a variable name matching ^[A-Za-z_][A-Za-z0-9_]*$',
    ]);
    assert.deepEqual(at({ while: 'true' }, { forEach: { expression: '[]' } }), [
      '/steps/1/loop cannot be combined with the step-level forEach; use one of them',
    ]);
  });

  it('signal-wait timeoutMs (the older spelling) times the wait out', async () => {
    const { outcome, waits } = await run({
      steps: [trigger(), step('wait', 'signal-wait', { signalName: 'go', timeoutMs: 300000 }, { dependsOn: ['start'] })],
    });
    assert.equal(waits[0].timeoutMs, 300000);
    assert.equal(outcome.error?.type, 'SIGNAL_WAIT_TIMEOUT');
  });

  it('metadata.executionTimeoutMs bounds the activity when the step has no timeout (timeout wins when both are set)', async () => {
    const { calls } = await run(
      {
        steps: [
          trigger(),
          step('a', 'http-request', { url: 'https://x.test' }, { metadata: { executionTimeoutMs: 1234 }, dependsOn: ['start'] }),
          step('b', 'http-request', { url: 'https://x.test' }, { timeout: '2s', metadata: { executionTimeoutMs: 1234 }, dependsOn: ['a'] }),
        ],
      },
      {},
      { activities: { 'http-request': () => ok({}) } },
    );
    assert.deepEqual(
      calls.map((call) => call.timeoutMs),
      [1234, 2000],
    );
  });

  it('a step timeout and retryPolicy on an activity step become the activity timeout and Temporal retry policy', async () => {
    const { calls } = await run(
      {
        steps: [
          trigger(),
          step(
            'a',
            'http-request',
            { url: 'https://x.test' },
            {
              timeout: '30s',
              errorHandling: { retryPolicy: { max_attempts: 4, initial_interval: '2s', backoff_strategy: 'fixed' } },
              dependsOn: ['start'],
            },
          ),
        ],
      },
      {},
      { activities: { 'http-request': () => ok({}) } },
    );
    assert.equal(calls[0].timeoutMs, 30000);
    assert.deepEqual(calls[0].retryPolicy, {
      maximumAttempts: 4,
      initialIntervalMs: 2000,
      backoffCoefficient: 1,
      maximumIntervalMs: undefined,
    });
  });

  it('retryPolicy on an inline step (sub-workflow) starts a failed child again after the backoff', async () => {
    let children = 0;
    const { outcome, sleeps } = await run(
      {
        steps: [
          trigger(),
          step(
            'child',
            'sub-workflow',
            { workflowId: 'wf_child' },
            {
              errorHandling: { retryPolicy: { maxRetries: 2, initialInterval: '1s' } },
              dependsOn: ['start'],
            },
          ),
        ],
        outputs: { child: '${{ steps.child.outputs.outputs }}' },
      },
      {},
      {
        children: () => {
          children += 1;
          if (children < 3) throw new Error(`child run ${children} failed`);
          return { executionId: 'exec_child', outputs: { done: true } };
        },
      },
    );
    assert.deepEqual(outcome, { status: 'completed', outputs: { child: { done: true } } });
    assert.equal(children, 3);
    assert.deepEqual(sleeps, [1000, 2000]);
  });

  it('resolves templates in a variable initialValue when the run starts (vars, workflow inputs)', async () => {
    const { outcome } = await run(
      {
        variables: { greeting: { initialValue: { text: 'hi ${{ workflow.inputs.who }} in ${{ vars.REGION }}' } } },
        steps: [trigger(), step('n', 'no-op', {}, { dependsOn: ['start'] })],
        outputs: { greeting: '${{ variables.greeting.text }}' },
      },
      { who: 'ada' },
    );
    assert.deepEqual(outcome, { status: 'completed', outputs: { greeting: 'hi ada in eu' } });
    const bad = await run({
      variables: { broken: { initialValue: '${{ vars.NOT_SET }}' } },
      steps: [trigger(), step('n', 'no-op', {}, { dependsOn: ['start'] })],
    });
    assert.equal(bad.outcome.error?.type, 'VARIABLE_INITIAL_VALUE_INVALID');
    assert.match(bad.outcome.error?.message ?? '', /initialValue of variable "broken": variable NOT_SET has no value/);
  });

  it('refuses code-exec libraries at publish: the sandbox installs no packages', () => {
    assert.deepEqual(
      errorsOf({ steps: [trigger(), step('c', 'code-exec', { code: 'return 1', libraries: ['lodash@^4'] }, { dependsOn: ['start'] })] }),
      [
        {
          path: '/steps/1/config/libraries',
          message:
            'code-exec libraries are not supported: the sandbox installs no packages (it has no network to fetch them); put the code you need in "code"',
        },
      ],
    );
  });

  it('refuses at publish a secrets binding to a stored secret of another name', () => {
    const errors = errorsOf({ secrets: { np_api_token: { key: 'np.api.token' }, OTHER: {} }, steps: [trigger()] });
    assert.deepEqual(
      errors.map((e) => e.path),
      ['/secrets/np_api_token/key'],
    );
  });

  it('warns at publish about timeout, executionTimeoutMs and retryPolicy where they have no effect, retry jitter and webhook-wait correlationKey', () => {
    const warnings = warningsOf({
      steps: [
        trigger(),
        step('log', 'log', { message: 'x' }, { timeout: '1s', metadata: { executionTimeoutMs: 5 }, dependsOn: ['start'] }),
        step(
          'pass',
          'no-op',
          {},
          { type: 'passthrough', pluginType: undefined, errorHandling: { retryPolicy: { maxRetries: 1 } }, dependsOn: ['log'] },
        ),
        step('call', 'http-request', { url: 'https://x.test' }, { errorHandling: { retryPolicy: { jitter: 0.2 } }, dependsOn: ['pass'] }),
        step('hook', 'webhook-wait', { correlationKey: 'k' }, { dependsOn: ['call'] }),
      ],
    });
    assert.deepEqual(
      warnings.map((w) => `${w.code} ${w.path}`),
      [
        'DEFINITION_KEY_IGNORED /steps/1/timeout',
        'DEFINITION_KEY_IGNORED /steps/1/metadata/executionTimeoutMs',
        'DEFINITION_KEY_IGNORED /steps/2/errorHandling/retryPolicy',
        'DEFINITION_KEY_IGNORED /steps/3/errorHandling/retryPolicy/jitter',
        'DEFINITION_KEY_IGNORED /steps/4/config/correlationKey',
      ],
    );
  });
});
