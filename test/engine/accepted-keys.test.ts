/**
 * Keys the validator accepts, each shown to take effect (through the pure
 * engine with fake effects) or to be refused / warned about at publish
 * (issue 18 §1). The table in ./accepted-keys.ts maps every accepted key to a
 * test here or elsewhere; accepted-keys-enumeration.test.ts keeps it complete.
 */
import assert from 'node:assert/strict';
import { validateDefinition, type ActivityCall, type ChildRequest, type PluginResult } from '../../workflows/engine';
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
    assert.deepEqual(at({ while: 'true', forEach: 'variables.list' }), [
      '/steps/1/loop needs exactly one of forEach (an array expression) or while (a condition)',
    ]);
    assert.deepEqual(at({ while: 'true', maxIterations: 1001 }), ['/steps/1/loop/maxIterations must be an integer from 1 to 1000']);
    assert.deepEqual(at({ forEach: 'variables.list', itemName: 'a-b' }), [
      '/steps/1/loop/itemName must be a variable name matching ^[A-Za-z_][A-Za-z0-9_]*$',
    ]);
    assert.deepEqual(at({ while: 'true' }, { forEach: { expression: 'variables.list' } }), [
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

  it('retry jitter: the engine retries the activity itself, waiting each backoff scaled by a random factor within ±jitter', async () => {
    let attempts = 0;
    const { outcome, calls, sleeps } = await run(
      {
        steps: [
          trigger(),
          step(
            'a',
            'http-request',
            { url: 'https://x.test' },
            {
              errorHandling: { retryPolicy: { maxAttempts: 4, initialInterval: '1s', jitter: 0.5 } },
              dependsOn: ['start'],
            },
          ),
          step(
            'b',
            'http-request',
            { url: 'https://x.test/final' },
            {
              errorHandling: { retryPolicy: { maxAttempts: 4, jitter: 0.5 } },
              dependsOn: ['a'],
            },
          ),
        ],
      },
      {},
      {
        activities: {
          'http-request': (call: ActivityCall) => {
            if (call.config.url === 'https://x.test/final')
              throw Object.assign(new Error('bad request'), { cause: { type: 'HTTP_4XX', nonRetryable: true, message: 'bad request' } });
            attempts += 1;
            if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
            return ok({ attempts });
          },
        },
      },
    );
    assert.equal(calls.filter((call) => call.stepId === 'a').length, 3);
    assert.ok(
      calls.every((call) => call.retryPolicy?.maximumAttempts === 1),
      'Temporal makes one attempt per call',
    );
    assert.equal(sleeps.length, 2);
    assert.ok(sleeps[0] >= 500 && sleeps[0] <= 1500 && sleeps[1] >= 1000 && sleeps[1] <= 3000, JSON.stringify(sleeps));
    assert.notDeepEqual(sleeps, [1000, 2000], 'the intervals are jittered');
    // A non-retryable failure is not retried.
    assert.equal(calls.filter((call) => call.stepId === 'b').length, 1);
    assert.equal(outcome.error?.type, 'HTTP_4XX');
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

  it('refuses at publish a secrets binding whose key cannot name a config entry, and sends the renaming bindings with the templates that read a secret', async () => {
    const errors = errorsOf({ secrets: { np_api_token: { key: 'np.api.token' }, OTHER: {} }, steps: [trigger()] });
    assert.deepEqual(
      errors.map((e) => e.path),
      ['/secrets/np_api_token/key'],
    );
    const { calls } = await run(
      {
        secrets: { np_api_token: { key: 'NP_API_TOKEN' }, PLAIN: {} },
        steps: [
          trigger(),
          step(
            'call',
            'http-request',
            { url: 'https://x.test', headers: { Authorization: 'Bearer ${{ secrets.np_api_token }}' } },
            { dependsOn: ['start'] },
          ),
          step('after', 'http-request', { url: 'https://x.test' }, { dependsOn: ['call'] }),
        ],
      },
      {},
      { activities: { 'http-request': () => ok({}) } },
    );
    assert.deepEqual(calls[0].secretBindings, { np_api_token: 'NP_API_TOKEN' });
    assert.equal(calls[1].secretBindings, undefined, 'a call that reads no secret gets no bindings');
  });

  it('warns at publish about timeout, executionTimeoutMs and retryPolicy where they have no effect, and webhook-wait correlationKey', () => {
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
        'DEFINITION_KEY_IGNORED /steps/4/config/correlationKey',
      ],
    );
  });
});

describe('accepted keys take effect (plugin config and step fields)', () => {
  it('log writes its message at its level with its metadata', async () => {
    const { logs } = await run(
      {
        steps: [
          trigger(),
          step(
            'note',
            'log',
            { level: 'warn', message: 'disk ${{ workflow.inputs.disk }}', metadata: { host: 'a' } },
            { dependsOn: ['start'] },
          ),
        ],
      },
      { disk: 91 },
    );
    const line = logs.find((entry) => entry.stepId === 'note');
    assert.deepEqual([line?.level, line?.message, line?.metadata], ['warn', 'disk 91', { host: 'a' }]);
  });

  it('fail carries its code, message and metadata (as error details) on the step record', async () => {
    const { outcome, ctx } = await run({
      steps: [trigger(), step('stop', 'fail', { code: 'QUOTA', message: 'over quota', metadata: { used: 11 } }, { dependsOn: ['start'] })],
    });
    assert.deepEqual(outcome.error, { type: 'QUOTA', message: 'over quota', stepId: 'stop' });
    assert.deepEqual(ctx.steps.stop.error?.details, { used: 11 });
  });

  it('conditional truePort and falsePort rename its ports; case default names the port when no case matches', async () => {
    const { ctx } = await run(
      {
        steps: [
          trigger(),
          step(
            'check',
            'conditional',
            { expression: 'workflow.inputs.n > 1', truePort: 'big', falsePort: 'small' },
            { dependsOn: ['start'] },
          ),
          step('bigOne', 'no-op'),
          step('smallOne', 'no-op'),
          step(
            'pick',
            'case',
            { expression: 'workflow.inputs.n', cases: [{ match: 1, port: 'one' }], default: 'other' },
            { dependsOn: ['start'] },
          ),
          step('isOne', 'no-op'),
          step('isOther', 'no-op'),
        ],
        connections: [
          { from: 'check', to: 'bigOne', sourcePort: 'big' },
          { from: 'check', to: 'smallOne', sourcePort: 'small' },
          { from: 'pick', to: 'isOne', sourcePort: 'one' },
          { from: 'pick', to: 'isOther', sourcePort: 'other' },
        ],
      },
      { n: 5 },
    );
    assert.deepEqual(
      ['bigOne', 'smallOne', 'isOne', 'isOther'].map((id) => ctx.steps[id].status),
      ['completed', 'skipped', 'skipped', 'completed'],
    );
  });

  it('signal-wait defaultValue is the payload when the wait times out with onTimeout continue', async () => {
    const { ctx } = await run({
      steps: [
        trigger(),
        step(
          'wait',
          'signal-wait',
          { signalName: 'go', timeout: '1m', onTimeout: 'continue', defaultValue: { approved: false } },
          { dependsOn: ['start'] },
        ),
      ],
    });
    // Its keys are also the step's own outputs, as a payload's are (test/engine/compat-plugins.test.ts).
    assert.deepEqual(ctx.steps.wait.outputs, {
      name: null,
      payload: { approved: false },
      receivedAt: null,
      signalId: null,
      timedOut: true,
      approved: false,
    });
  });

  it('webhook-wait takes its timeout, onTimeout and urlPrefix', async () => {
    const { ctx, waits } = await run({
      steps: [
        trigger(),
        step('hook', 'webhook-wait', { timeout: '2m', onTimeout: 'continue', urlPrefix: 'billing' }, { dependsOn: ['start'] }),
      ],
    });
    assert.equal(waits[0].timeoutMs, 120_000);
    assert.match(waits[0].callbackUrl ?? '', /\/workflows\/webhooks\/callback\/billing\/exec_1\/[0-9a-z]+$/);
    assert.equal(ctx.steps.hook.status, 'completed');
    assert.equal(ctx.steps.hook.outputs.timedOut, true);
  });

  it('split-in-batches reset starts over with the items of each entry, forgetting the batches processed so far', async () => {
    const loop = (reset: boolean) => ({
      steps: [
        trigger(),
        step('split', 'split-in-batches', { batchSize: 2, arrayPath: 'list', reset }, { dependsOn: ['start'] }),
        step('work', 'no-op'),
        step('finish', 'no-op'),
      ],
      connections: [
        { from: 'split', to: 'work', sourcePort: 'loop' },
        { from: 'work', to: 'split' },
        { from: 'split', to: 'finish', sourcePort: 'done' },
      ],
    });
    const kept = await run(loop(false), { list: [1, 2, 3] });
    assert.deepEqual(
      kept.ctx.steps.split.outputs.items,
      [1, 2, 3].map((value) => ({ value })),
    );
    // With reset, the first re-entry starts over from what arrived (a batch without `list`): nothing left, nothing kept.
    const restarted = await run(loop(true), { list: [1, 2, 3] });
    assert.equal(restarted.outcome.status, 'completed');
    assert.deepEqual(restarted.ctx.steps.split.outputs.items, []);
  });

  it('sub-workflow passes alias, revision, waitForCompletion and inheritCorrelationKey to the child start, and bounds children by maxParallelism', async () => {
    const requests: ChildRequest[] = [];
    let running = 0;
    let most = 0;
    await run(
      {
        steps: [
          trigger(),
          step(
            'kids',
            'sub-workflow',
            {
              workflowId: 'wf_child',
              alias: 'prod',
              revision: 3,
              waitForCompletion: false,
              inheritCorrelationKey: true,
              maxParallelism: 2,
            },
            { inputs: { n: '${{ $item.n }}' }, metadata: { fanOutPerItem: true } },
          ),
          step('items', 'code-exec', { code: 'return {items: inputs.list}' }, { dependsOn: ['start'] }),
        ],
        connections: [{ from: 'items', to: 'kids' }],
      },
      {},
      {
        activities: { 'code-exec': () => ({ status: 'success', items: [1, 2, 3, 4, 5].map((n) => ({ n })) }) },
        children: async (request) => {
          requests.push(request);
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
          return { executionId: `exec_${String(request.inputs.n)}`, outputs: {} };
        },
      },
      { correlationKey: 'order-7' },
    );
    assert.equal(requests.length, 5);
    assert.deepEqual(
      { alias: requests[0].alias, revision: requests[0].revision, wait: requests[0].waitForCompletion, key: requests[0].correlationKey },
      { alias: 'prod', revision: 3, wait: false, key: 'order-7' },
    );
    assert.equal(most, 2);
  });

  it('forEach names the element itemVariable and its index indexVariable, spreads it with spreadItem, and bounds parallel runs by maxConcurrency', async () => {
    let running = 0;
    let most = 0;
    const { calls } = await run(
      {
        steps: [
          trigger(),
          step(
            'each',
            'http-request',
            { url: 'https://x.test/${{ variables.user.id }}/${{ variables.at }}' },
            {
              forEach: {
                expression: 'workflow.inputs.users',
                itemVariable: 'user',
                indexVariable: 'at',
                spreadItem: true,
                parallel: true,
                maxConcurrency: 2,
              },
              dependsOn: ['start'],
            },
          ),
        ],
      },
      { users: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
      {
        activities: {
          'http-request': async (call: ActivityCall) => {
            running += 1;
            most = Math.max(most, running);
            await new Promise((resolve) => setTimeout(resolve, 5));
            running -= 1;
            return ok({ url: call.config.url, id: call.inputs.id });
          },
        },
      },
    );
    assert.deepEqual(calls.map((call) => [call.config.url, call.inputs.id, (call.inputs.user as { id: string }).id]).sort(), [
      ['https://x.test/a/0', 'a', 'a'],
      ['https://x.test/b/1', 'b', 'b'],
      ['https://x.test/c/2', 'c', 'c'],
    ]);
    assert.equal(most, 2);
  });

  it('metadata.fanOutPerItem false makes one call for the batch; metadata.maxParallelism bounds per-item calls', async () => {
    let running = 0;
    let most = 0;
    const fetcher = async (call: ActivityCall): Promise<PluginResult> => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return ok({ n: call.items.length });
    };
    const doc = (metadata: Record<string, unknown>) => ({
      steps: [
        trigger(),
        step('items', 'code-exec', { code: 'x' }, { dependsOn: ['start'] }),
        step('call', 'http-request', { url: 'https://x.test' }, { metadata, dependsOn: ['items'] }),
      ],
    });
    const batch = { 'code-exec': () => ({ status: 'success' as const, items: [1, 2, 3, 4].map((n) => ({ n })) }), 'http-request': fetcher };
    const once = await run(doc({ fanOutPerItem: false }), {}, { activities: batch });
    assert.equal(once.calls.filter((call) => call.pluginType === 'http-request').length, 1);
    const perItem = await run(doc({ maxParallelism: 1 }), {}, { activities: batch });
    assert.equal(perItem.calls.filter((call) => call.pluginType === 'http-request').length, 4);
    assert.equal(most, 1);
  });

  it('retryPolicy backoff (fixed or exponential) and maxInterval reach the activity retry policy', async () => {
    const { calls } = await run(
      {
        steps: [
          trigger(),
          step(
            'a',
            'http-request',
            { url: 'https://x.test' },
            {
              errorHandling: { retryPolicy: { maxRetries: 2, backoff: 'fixed' } },
              dependsOn: ['start'],
            },
          ),
          step(
            'b',
            'http-request',
            { url: 'https://x.test' },
            {
              errorHandling: { retryPolicy: { maxRetries: 5, backoff: 'exponential', maxInterval: '1m' } },
              dependsOn: ['a'],
            },
          ),
        ],
      },
      {},
      { activities: { 'http-request': () => ok({}) } },
    );
    assert.deepEqual(
      calls.map((call) => call.retryPolicy),
      [
        { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 1, maximumIntervalMs: undefined },
        { maximumAttempts: 6, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 60_000 },
      ],
    );
  });

  it('keeps the descriptive keys (step name and description, the manual trigger description) in the stored definition', () => {
    const def = validateDefinition({
      name: 'x',
      description: 'what it does',
      steps: [
        trigger('start', 'manual', { description: 'Run it by hand' }),
        step('n', 'no-op', {}, { name: 'Nothing', description: 'does nothing', dependsOn: ['start'] }),
      ],
    }).definition!;
    assert.equal(def.description, 'what it does');
    assert.equal(def.steps.start.config.description, 'Run it by hand');
    assert.deepEqual(
      [def.steps.n.name, def.steps.n.description, def.steps.n.id, def.steps.n.type, def.steps.n.pluginType],
      ['Nothing', 'does nothing', 'n', 'module', 'no-op'],
    );
  });

  it('refuses at publish a code-exec TypeScript script with templates and http-request verifySsl false', () => {
    const errors = errorsOf({
      steps: [
        trigger(),
        step('c', 'code-exec', { code: 'const n: number = 1; return n', language: 'ts' }, { dependsOn: ['start'] }),
        step(
          't',
          'code-exec',
          { code: "const who: string = '${{ workflow.inputs.who }}'; return { who }", language: 'typescript' },
          { dependsOn: ['c'] },
        ),
        step('h', 'http-request', { url: 'https://x.test', verifySsl: false }, { dependsOn: ['t'] }),
      ],
    });
    assert.deepEqual(
      errors.map((e) => e.path),
      ['/steps/2/config/code', '/steps/3/config/verifySsl'],
    );
    assert.match(errors[0].message, /TypeScript cannot hold templates: declare the value in the step's inputs/);
  });

  it('warns at publish about webhook path and code-exec executionConfig and runtime', () => {
    const warnings = warningsOf({
      steps: [
        trigger('hook', 'webhook', { path: '/orders' }),
        step('c', 'code-exec', { code: 'return 1', executionConfig: { timeoutMs: 5 }, runtime: { memory: 64 } }, { dependsOn: ['hook'] }),
      ],
    });
    assert.deepEqual(
      warnings.map((w) => `${w.code} ${w.path}`),
      [
        'DEFINITION_KEY_IGNORED /steps/0/config/path',
        'DEFINITION_KEY_IGNORED /steps/1/config/executionConfig',
        'DEFINITION_KEY_IGNORED /steps/1/config/runtime',
      ],
    );
  });
  it('config.maxParallelism bounds the per-item calls of any plugin', async () => {
    let running = 0;
    let most = 0;
    await run(
      {
        steps: [
          trigger(),
          step('items', 'code-exec', { code: 'x' }, { dependsOn: ['start'] }),
          step('call', 'http-request', { url: 'https://x.test', maxParallelism: 2 }, { dependsOn: ['items'] }),
        ],
      },
      {},
      {
        activities: {
          'code-exec': () => ({ status: 'success', items: [1, 2, 3, 4, 5].map((n) => ({ n })) }),
          'http-request': async () => {
            running += 1;
            most = Math.max(most, running);
            await new Promise((resolve) => setTimeout(resolve, 5));
            running -= 1;
            return ok({});
          },
        },
      },
    );
    assert.equal(most, 2);
  });

  it('warns at publish about keys the engine does not read: unknown step, error handling, retry, forEach, loop and config keys, and a top-level id', () => {
    const warnings = warningsOf({
      id: 'arch-rule-check',
      owner: 'team-a',
      steps: [
        trigger(),
        step(
          'call',
          'http-request',
          { url: 'https://x.test', retries: 3 },
          {
            retry_count: 2,
            errorHandling: { onFailure: 'x', retryPolicy: { maxRetries: 1, multiplier: 3 } },
            dependsOn: ['start'],
          },
        ),
        step('each', 'no-op', {}, { forEach: { expression: 'variables.list', batch: 2 }, dependsOn: ['call'] }),
        step('again', 'no-op', {}, { loop: { while: 'false', until: 'true' }, dependsOn: ['each'] }),
      ],
    });
    assert.deepEqual(
      warnings.map((w) => `${w.path} ${w.message}`),
      [
        '/id id is not used: the server assigns the workflow id (wf_…); send key for a client key',
        '/owner owner is not a definition field; it has no effect',
        '/steps/1/retry_count retry_count is not a step field; it has no effect',
        '/steps/1/errorHandling/onFailure errorHandling.onFailure is not a step field; it has no effect',
        '/steps/1/errorHandling/retryPolicy/multiplier errorHandling.retryPolicy.multiplier is not a step field; it has no effect',
        '/steps/1/config/retries retries is not a config key of plugin http-request; it has no effect',
        '/steps/2/forEach/batch forEach.batch is not a step field; it has no effect',
        '/steps/3/loop/until loop.until is not a step field; it has no effect',
      ],
    );
  });
});
