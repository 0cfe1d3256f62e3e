import assert from 'node:assert/strict';
import { findPlugin, type ActivityCall, type PluginResult } from '../../workflows/engine';
import { chain, connections, step, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

const manual = trigger();

describe('execution runtime (pure, fake effects)', () => {
  it('runs inline steps in the workflow and resolves outputs', async () => {
    //   start ─▶ setVar ─▶ check ─true─▶ logIt
    //                            └false─▶ never
    const { outcome, calls, logs, ctx } = await run(
      {
        variables: { total: { initialValue: 1 } },
        steps: [
          manual,
          {
            id: 'setVar',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'total', value: '${{ variables.total + workflow.inputs.n }}' },
            dependsOn: ['start'],
          },
          { id: 'check', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.total > 5' }, dependsOn: ['setVar'] },
          { id: 'logIt', type: 'module', pluginType: 'log', config: { message: 'total is ${{ variables.total }} in ${{ vars.REGION }}' } },
          { id: 'never', type: 'module', pluginType: 'no-op', config: {} },
        ],
        connections: connections('check:true->logIt', 'check:false->never'),
        outputs: { total: '${{ variables.total }}', matched: '${{ steps.check.outputs.matchedPort }}' },
      },
      { n: 9 },
    );
    assert.deepEqual(outcome, { status: 'completed', outputs: { total: 10, matched: 'true' } });
    assert.equal(calls.length, 0, 'pure steps make no activity call');
    assert.deepEqual(
      logs.map((l) => l.message),
      ['total is 10 in eu'],
    );
    assert.equal(ctx.steps.never.status, 'skipped');
  });

  it('skips the steps of a trigger that did not fire, from the first transition on', async () => {
    //   start ─▶ a          hook (webhook, not fired) ─▶ b
    const { outcome, ctx } = await run({
      steps: [manual, step('a', 'no-op'), trigger('hook', 'webhook', { mode: 'signal' }), step('b', 'no-op')],
      connections: connections('start->a', 'hook->b'),
    });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.deepEqual([ctx.steps.a.status, ctx.steps.hook.status, ctx.steps.b.status], ['completed', 'skipped', 'skipped']);
  });

  it('fans an activity out per item in `each` mode, keeping item order', async () => {
    // The list step emits three items; the http step runs once per item, later items finishing first.
    const { outcome, calls } = await run(
      {
        steps: [
          manual,
          {
            id: 'list',
            type: 'module',
            pluginType: 'code-exec',
            config: { code: 'return [1,2,3]', returns: 'items' },
            dependsOn: ['start'],
          },
          { id: 'fetch', type: 'module', pluginType: 'http-request', config: { url: 'https://x/${{ $item.id }}' }, dependsOn: ['list'] },
        ],
        outputs: { urls: '${{ steps.fetch.items }}' },
      },
      {},
      {
        activities: {
          'code-exec': () => ({ status: 'success', items: [{ id: 1 }, { id: 2 }, { id: 3 }] }),
          'http-request': async (call) => {
            await new Promise((r) => setTimeout(r, 10 - 3 * (call.itemIndex ?? 0)));
            return { status: 'success', outputs: { url: call.config.url } };
          },
        },
      },
    );
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(outcome.outputs.urls, [{ url: 'https://x/1' }, { url: 'https://x/2' }, { url: 'https://x/3' }]);
    assert.deepEqual(
      calls.filter((c) => c.pluginType === 'http-request').map((c) => c.itemIndex),
      [0, 1, 2],
    );
  });

  it('lets a mode property choose the execute mode: code-exec mode each runs once per item', async () => {
    const { outcome, calls } = await run(
      {
        steps: [
          manual,
          { id: 'list', type: 'module', pluginType: 'code-exec', config: { code: 'return [1,2]', returns: 'items' }, dependsOn: ['start'] },
          { id: 'each', type: 'module', pluginType: 'code-exec', config: { code: 'return $item', mode: 'each' }, dependsOn: ['list'] },
          { id: 'all', type: 'module', pluginType: 'code-exec', config: { code: 'return $items' }, dependsOn: ['list'] },
        ],
      },
      {},
      {
        activities: {
          'code-exec': (call) =>
            call.stepId === 'list'
              ? { status: 'success', items: [{ id: 1 }, { id: 2 }] }
              : { status: 'success', outputs: { n: call.items.length } },
        },
      },
    );
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(
      calls.filter((c) => c.stepId === 'each').map((c) => [c.itemIndex, c.item]),
      [
        [0, { id: 1 }],
        [1, { id: 2 }],
      ],
    );
    assert.equal(calls.filter((c) => c.stepId === 'all').length, 1, 'code-exec defaults to all');
  });

  it('routes each item through a decider to its own port', async () => {
    const { ctx } = await run(
      {
        steps: [
          manual,
          { id: 'list', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
          { id: 'big', type: 'decider', pluginType: 'conditional', config: { expression: '$item.n > 1' }, dependsOn: ['list'] },
          { id: 'yes', type: 'module', pluginType: 'no-op', config: {} },
          { id: 'no', type: 'module', pluginType: 'no-op', config: {} },
        ],
        connections: connections('big:true->yes', 'big:false->no'),
      },
      {},
      { activities: { 'code-exec': () => ({ status: 'success', items: [{ n: 1 }, { n: 2 }, { n: 3 }] }) } },
    );
    assert.deepEqual(ctx.steps.yes.items, [{ n: 2 }, { n: 3 }]);
    assert.deepEqual(ctx.steps.no.items, [{ n: 1 }]);
  });

  it('routes a failure to the fallback step, which reads the error', async () => {
    const { outcome, ctx } = await run({
      steps: [
        manual,
        {
          id: 'boom',
          type: 'module',
          pluginType: 'fail',
          config: { message: 'bad thing', code: 'E_BAD' },
          dependsOn: ['start'],
          errorHandling: { fallbackStep: 'rescue' },
        },
        { id: 'after', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['boom'] },
        {
          id: 'rescue',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'why', value: '${{ steps.boom.error.code }}: ${{ steps.boom.error.message }}' },
        },
      ],
      outputs: { why: '${{ variables.why }}' },
    });
    assert.deepEqual(outcome, { status: 'completed', outputs: { why: 'E_BAD: bad thing' } });
    assert.equal(ctx.steps.after.status, 'skipped');
  });

  it('fails the execution with the real cause when nothing handles a failure', async () => {
    const { outcome } = await run({
      steps: [manual, { id: 'boom', type: 'module', pluginType: 'fail', config: { message: 'stop here' }, dependsOn: ['start'] }],
    });
    assert.deepEqual(outcome, { status: 'failed', outputs: {}, error: { type: 'WORKFLOW_FAILED', message: 'stop here', stepId: 'boom' } });
  });

  it('runs forEach sequentially with reduce, and in parallel counting failures', async () => {
    // The reduce accumulator is a variable: each call reads the previous output as inputs.acc.
    const appended = (acc: unknown, item: unknown): string => {
      const previous: unknown = acc !== null && typeof acc === 'object' ? (acc as Record<string, unknown>).acc : undefined;
      return `${typeof previous === 'string' ? previous : ''}${String(item)}`;
    };
    const activities = {
      'http-request': (call: ActivityCall) =>
        call.inputs.item === 'bad'
          ? ({ status: 'failure', error: { code: 'HTTP_500', message: 'x' } } as PluginResult)
          : ({
              status: 'success',
              outputs: {
                got: call.inputs.item,
                i: call.inputs.index,
                ...(call.inputs.acc !== undefined ? { acc: appended(call.inputs.acc, call.inputs.item) } : {}),
              },
            } as PluginResult),
    };
    const sequential = await run(
      {
        variables: { list: { initialValue: ['a', 'b', 'c'] } },
        steps: [
          manual,
          {
            id: 'each',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://x' },
            dependsOn: ['start'],
            forEach: { expression: '${{ variables.list }}', reduce: { initialValue: { acc: '' }, accumulator: 'acc' } },
          },
        ],
        outputs: { out: '${{ steps.each.outputs }}' },
      },
      {},
      { activities },
    );
    assert.deepEqual(sequential.outcome.outputs.out, {
      items: [
        { got: 'a', i: 0, acc: 'a' },
        { got: 'b', i: 1, acc: 'ab' },
        { got: 'c', i: 2, acc: 'abc' },
      ],
      count: 3,
      failed: 0,
      result: { got: 'c', i: 2, acc: 'abc' },
    });
    const parallel = await run(
      {
        variables: { list: { initialValue: ['a', 'bad', 'c'] } },
        steps: [
          manual,
          {
            id: 'each',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://x' },
            dependsOn: ['start'],
            forEach: { expression: 'variables.list', parallel: true, maxConcurrency: 2 },
          },
        ],
        outputs: { out: '${{ steps.each.outputs }}' },
      },
      {},
      { activities },
    );
    assert.deepEqual(parallel.outcome.outputs.out, { items: [{ got: 'a', i: 0 }, {}, { got: 'c', i: 2 }], count: 3, failed: 1 });
  });

  it('waits for a signal; the next step reads signal.payload', async () => {
    const { outcome, waits } = await run(
      {
        steps: [
          manual,
          {
            id: 'approve',
            type: 'wait',
            pluginType: 'signal-wait',
            config: { signalName: 'approval', correlationKey: 'item:${{ workflow.inputs.id }}', timeout: '2h' },
            dependsOn: ['start'],
          },
          {
            id: 'record',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'decision', value: '${{ signal.payload.decision }}' },
            dependsOn: ['approve'],
          },
        ],
        outputs: { decision: '${{ variables.decision }}' },
      },
      { id: 7 },
      {
        signals: () => ({
          timedOut: false,
          name: 'approval',
          payload: { decision: 'yes' },
          receivedAt: '2026-01-01T00:01:00Z',
          signalId: 'sig_1',
        }),
      },
    );
    assert.deepEqual(waits, [{ stepId: 'approve', signalNames: ['approval'], correlationKey: 'item:7', timeoutMs: 7_200_000 }]);
    assert.deepEqual(outcome.outputs, { decision: 'yes' });
  });

  it('times a wait out: error by default, or through the timeout port with onTimeout continue', async () => {
    const failing = await run({
      steps: [
        manual,
        { id: 'w', type: 'wait', pluginType: 'signal-wait', config: { signalName: 's', timeout: '1s' }, dependsOn: ['start'] },
      ],
    });
    assert.equal(failing.outcome.error?.type, 'SIGNAL_WAIT_TIMEOUT');
    const routed = await run({
      steps: [
        manual,
        {
          id: 'w',
          type: 'wait',
          pluginType: 'signal-wait',
          config: { signalName: 's', timeout: '1s', onTimeout: 'continue' },
          dependsOn: ['start'],
        },
        { id: 'late', type: 'module', pluginType: 'no-op', config: {} },
        { id: 'onTime', type: 'module', pluginType: 'no-op', config: {} },
      ],
      connections: connections('w:timeout->late', 'w:default->onTime'),
    });
    assert.equal(routed.ctx.steps.late.status, 'completed');
    assert.equal(routed.ctx.steps.onTime.status, 'skipped');
  });

  it('loops split-in-batches through a back-edge and collects every processed item', async () => {
    const { outcome, ctx } = await run(
      {
        variables: { seen: { initialValue: [] } },
        steps: [
          manual,
          {
            id: 'split',
            type: 'module',
            pluginType: 'split-in-batches',
            config: { batchSize: 2, arrayPath: 'list' },
            dependsOn: ['start'],
          },
          {
            id: 'work',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'seen', value: '${{ concat(variables.seen, $items) }}' },
          },
          { id: 'finish', type: 'module', pluginType: 'no-op', config: {} },
        ],
        connections: connections('split:loop->work', 'work->split', 'split:done->finish'),
        outputs: { seen: '${{ len(variables.seen) }}', done: '${{ len(steps.finish.items) }}' },
      },
      { list: [1, 2, 3, 4, 5] },
    );
    assert.deepEqual(outcome, { status: 'completed', outputs: { seen: 5, done: 5 } });
    assert.equal(ctx.steps.split.run, 4);
  });

  it('passes secret references to activities unresolved', async () => {
    const { calls } = await run(
      {
        steps: [
          manual,
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://x', headers: { Authorization: 'Bearer ${{ secrets.TOKEN }}' } },
            dependsOn: ['start'],
          },
        ],
      },
      {},
      { activities: { 'http-request': () => ({ status: 'success', outputs: {} }) } },
    );
    assert.deepEqual(calls[0].config.headers, { Authorization: 'Bearer ${{ secrets.TOKEN }}' });
  });

  it('skips a step whose condition is false, and what only it feeds', async () => {
    const { ctx } = await run(
      {
        steps: [
          manual,
          {
            id: 'maybe',
            type: 'module',
            pluginType: 'no-op',
            config: {},
            condition: '${{ workflow.inputs.go == true }}',
            dependsOn: ['start'],
          },
          { id: 'next', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['maybe'] },
        ],
      },
      { go: false },
    );
    assert.equal(ctx.steps.maybe.status, 'skipped');
    assert.equal(ctx.steps.next.status, 'skipped');
  });

  it('projects outputs', async () => {
    const { ctx } = await run(
      {
        steps: [
          manual,
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://x' },
            outputProjection: ['body.results[].id', 'statusCode'],
            dependsOn: ['start'],
          },
        ],
      },
      {},
      {
        activities: {
          'http-request': () => ({
            status: 'success',
            outputs: {
              statusCode: 200,
              headers: { a: 1 },
              body: {
                results: [
                  { id: 1, big: 'x' },
                  { id: 2, big: 'y' },
                ],
              },
            },
          }),
        },
      },
    );
    assert.deepEqual(ctx.steps.call.outputs, { body: { results: [{ id: 1 }, { id: 2 }] }, statusCode: 200 });
  });

  it('streams pages around a loop: the node state travels between calls through the callback back-edge', async () => {
    //   start ─▶ pages ─loop─▶ collect ─▶ pages.callback (back-edge)
    //                  └done──▶ finish
    const { outcome, calls } = await run(
      {
        variables: { seen: { initialValue: [] } },
        steps: [
          manual,
          {
            id: 'pages',
            type: 'module',
            pluginType: 'paginated-fetch',
            config: { url: 'https://api.test/items', mode: 'stream' },
            dependsOn: ['start'],
          },
          {
            id: 'collect',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'seen', value: '${{ concat(variables.seen, $items) }}' },
          },
          { id: 'finish', type: 'module', pluginType: 'no-op', config: {} },
        ],
        connections: connections('pages:loop->collect', 'collect->pages:callback', 'pages:done->finish'),
        outputs: { seen: '${{ variables.seen }}' },
      },
      {},
      {
        activities: {
          'paginated-fetch': (call) => {
            const page = typeof call.nodeState?.page === 'number' ? call.nodeState.page : 1;
            if (page > 3) return { status: 'success', items: [], activePorts: ['done'], nodeState: null };
            return {
              status: 'success',
              items: [
                { page, n: 1 },
                { page, n: 2 },
              ],
              activePorts: ['loop'],
              nodeState: { page: page + 1 },
            };
          },
        },
      },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.equal((outcome.outputs.seen as unknown[]).length, 6);
    assert.deepEqual(
      calls.map((call) => call.nodeState?.page ?? null),
      [null, 2, 3, 4],
    );
  });
  it('hands a step whose plugin the host runs itself to callActivity, with the host descriptor execute mode', async () => {
    //   start ─▶ say(log, run by the host in `all` mode) ─▶ after(no-op)
    const { outcome, calls, logs } = await run(
      { steps: chain(manual, step('say', 'log', { message: 'hi ${{ inputs.n }}' }), step('after', 'no-op')) },
      { n: 1 },
      {
        hostPlugins: { log: { ...findPlugin('log')!, inline: false, executeMode: 'all' } },
        activities: { log: (call) => ({ status: 'success', outputs: { said: call.config.message } }) },
      },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.deepEqual(
      calls.map((call) => [call.pluginType, call.config.message]),
      [['log', 'hi 1']],
    );
    assert.deepEqual(logs, []);
  });
});
