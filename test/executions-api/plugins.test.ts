/**
 * The plugins that the other end-to-end files do not exercise, each through
 * HTTP, PostgreSQL, Temporal and the real activities: deciders (conditional,
 * case), fail, delay, split-in-batches and paginated-fetch (accumulate, and
 * streaming around a loop).
 */
import assert from 'node:assert/strict';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connections, trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const start = trigger();

describe('executions API: plugins end to end', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let base: string;
  const all = [1, 2, 3, 4, 5].map((id) => ({ id }));

  before(async () => {
    // A paged API: ?page=N&limit=M → {data, hasMore}.
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const limit = Number(url.searchParams.get('limit'));
      const page = Number(url.searchParams.get('page'));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: all.slice((page - 1) * limit, page * limit), hasMore: page * limit < all.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function run(key: string, definition: Record<string, unknown>, inputs: Record<string, unknown> = {}) {
    await publish(env, org, { name: key, key, ...definition });
    const id = await execute(env, org, key, { inputs });
    return { id, done: await waitFor(env, org, id, finished) };
  }

  async function stepStatuses(id: string): Promise<Record<string, string>> {
    const res = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return Object.fromEntries((res.body.data as Array<{ stepId: string; status: string }>).map((s) => [s.stepId, s.status]));
  }

  it('routes through conditional and case deciders; untaken branches are skipped', async () => {
    //   start ─▶ big? ─true──▶ tier ─gold──▶ gold
    //               │              └default─▶ other
    //               └false─▶ small
    const { id, done } = await run(
      'deciders',
      {
        steps: [
          start,
          {
            id: 'big',
            type: 'decider',
            pluginType: 'conditional',
            config: { expression: 'workflow.inputs.amount > 100' },
            dependsOn: ['start'],
          },
          {
            id: 'tier',
            type: 'decider',
            pluginType: 'case',
            config: { expression: 'workflow.inputs.tier', cases: [{ port: 'gold', match: 'gold' }], default: 'default' },
          },
          { id: 'gold', type: 'module', pluginType: 'set-variable', config: { path: 'route', value: 'gold' } },
          { id: 'other', type: 'module', pluginType: 'set-variable', config: { path: 'route', value: 'other' } },
          { id: 'small', type: 'module', pluginType: 'set-variable', config: { path: 'route', value: 'small' } },
        ],
        connections: connections('big:true->tier', 'big:false->small', 'tier:gold->gold', 'tier:default->other'),
        variables: { route: { initialValue: 'none' } },
        outputs: { route: '${{ variables.route }}' },
      },
      { amount: 500, tier: 'gold' },
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { route: 'gold' });
    const statuses = await stepStatuses(id);
    assert.equal(statuses.gold, 'completed');
    assert.equal(statuses.other, 'skipped');
    assert.equal(statuses.small, 'skipped');
  });

  it('fails on purpose with the code and message of a fail step', async () => {
    const { done } = await run(
      'fails',
      {
        steps: [
          start,
          {
            id: 'stop',
            type: 'module',
            pluginType: 'fail',
            config: { message: 'budget of ${{ workflow.inputs.team }} exceeded', code: 'BUDGET_EXCEEDED' },
            dependsOn: ['start'],
          },
        ],
      },
      { team: 'payments' },
    );
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { type: 'BUDGET_EXCEEDED', message: 'budget of payments exceeded', stepId: 'stop' });
  });

  it('waits on a durable delay timer before going on', async () => {
    const started = Date.now();
    const { id, done } = await run('delays', {
      steps: [
        start,
        { id: 'pause', type: 'module', pluginType: 'delay', config: { duration: '300ms' }, dependsOn: ['start'] },
        { id: 'after', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['pause'] },
      ],
    });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.ok(Date.now() - started >= 300, 'the timer held the run');
    assert.equal((await stepStatuses(id)).after, 'completed');
  });

  it('sends batches around a split-in-batches loop, then everything to done', async () => {
    const { done } = await run(
      'batches',
      {
        variables: { seen: { initialValue: [] }, rounds: { initialValue: 0 } },
        steps: [
          start,
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
            config: { assignments: { seen: '${{ concat(variables.seen, $items) }}', rounds: '${{ variables.rounds + 1 }}' } },
          },
          { id: 'finish', type: 'module', pluginType: 'no-op', config: {} },
        ],
        connections: connections('split:loop->work', 'work->split', 'split:done->finish'),
        outputs: { seen: '${{ variables.seen }}', rounds: '${{ variables.rounds }}', done: '${{ len(steps.finish.items) }}' },
      },
      { list: [1, 2, 3, 4, 5] },
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    // Items are objects: plain values of the list travel as {value}.
    assert.deepEqual(done.outputs, { seen: [1, 2, 3, 4, 5].map((value) => ({ value })), rounds: 3, done: 5 });
  });

  it('accumulates every page of a paged API with paginated-fetch', async () => {
    const { done } = await run('pages-accumulate', {
      steps: [
        start,
        { id: 'pages', type: 'module', pluginType: 'paginated-fetch', config: { url: `${base}/items`, limit: 2 }, dependsOn: ['start'] },
      ],
      outputs: { items: '${{ steps.pages.items }}' },
    });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { items: all });
  });

  it('streams pages around a loop with paginated-fetch, its position kept between calls', async () => {
    const { done } = await run('pages-stream', {
      variables: { seen: { initialValue: [] } },
      steps: [
        start,
        {
          id: 'pages',
          type: 'module',
          pluginType: 'paginated-fetch',
          config: { url: `${base}/items`, limit: 2, mode: 'stream' },
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
    });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { seen: all });
  });
});
