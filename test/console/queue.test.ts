/**
 * The workflow page's queue (flow control, console/src/views/queue.ts) in a real browser: queued runs
 * per concurrency key, in their places oldest first, with how long each has waited; cancelling one
 * from the page ends it and moves the others up. No worker: a key's first run holds its slot (its
 * Temporal workflow never runs), so the queue behind it stays put while the page is read.
 */
import assert from 'node:assert/strict';
import { publish } from '../executions-api/support';
import { useConsole } from './support';

const keyed = {
  name: 'Deploy one app at a time',
  key: 'queued-deploy',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    note: { type: 'module', pluginType: 'log', config: { message: 'deploy ${{ workflow.inputs.app }}' } },
  },
  connections: [{ from: 'start', to: 'note' }],
  concurrency: { key: 'app-${{ workflow.inputs.app }}', limit: 1 },
};

describe('console: the queue on a workflow page', function () {
  this.timeout(180_000);
  const ui = useConsole({ withWorker: false });
  const { env, org } = ui;

  const start = async (workflowId: string, app: string): Promise<{ id: string; status: string }> => {
    const res = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({ inputs: { app } });
    assert.equal(res.status, 202, res.text);
    return { id: res.body.executionId as string, status: res.body.status as string };
  };
  /** [place, execution id] of each row of one key's table. */
  const rowsOf = async (key: string): Promise<string[][]> => {
    const rows = `table.queue-key[data-flow-key="${key}"] tbody tr`;
    const places = await ui.page.$$eval(`${rows} [data-queue-position]`, (els: PageElement[]) => els.map((e) => e.textContent ?? ''));
    const ids = await ui.page.$$eval(rows, (els: PageElement[]) => els.map((e) => e.getAttribute('data-execution-id') ?? ''));
    return ids.map((id, i) => [places[i], id]);
  };

  it('lists queued runs per key with place and age, and cancels one', async () => {
    const workflowId = await publish(env, org, keyed);
    const a = [await start(workflowId, 'a'), await start(workflowId, 'a'), await start(workflowId, 'a')];
    const b = [await start(workflowId, 'b'), await start(workflowId, 'b')];
    assert.deepEqual(
      [...a, ...b].map((run) => run.status),
      ['running', 'queued', 'queued', 'running', 'queued'],
    );

    const page = ui.page;
    await page.goto(`${ui.base}/console/workflows/${workflowId}`);
    await page.waitForSelector('section.queue table.queue-key[data-flow-key="app-a"]');
    assert.deepEqual(await rowsOf('app-a'), [
      ['1', a[1].id],
      ['2', a[2].id],
    ]);
    assert.deepEqual(await rowsOf('app-b'), [['1', b[1].id]]);
    // Running runs are not in the queue.
    assert.equal(await page.locator(`section.queue tr[data-execution-id="${a[0].id}"]`).count(), 0);
    const caption = await page.textContent('table.queue-key[data-flow-key="app-a"] caption');
    assert.match(caption ?? '', /app-a · concurrency · 2 queued/);
    const waited = await page.textContent(`tr[data-execution-id="${a[1].id}"] td:nth-child(3)`);
    assert.match(waited ?? '', /\d+(\.\d+)? (ms|s|min|h)/, `the age of a queued run: ${waited}`);

    await page.click(`button[aria-label="Cancel queued execution ${a[1].id}"]`);
    await page.waitForFunction((id: string) => !document.querySelector(`section.queue tr[data-execution-id="${id}"]`), a[1].id);
    assert.deepEqual(await rowsOf('app-a'), [['1', a[2].id]]);
    const cancelled = await org.auth(env.t.request.get(`/workflows/executions/${a[1].id}`)).expect(200);
    assert.equal(cancelled.body.status, 'cancelled');
    const still = await org.auth(env.t.request.get(`/workflows/executions/${a[2].id}`)).expect(200);
    assert.deepEqual(still.body.flowControl, { kind: 'concurrency', key: 'app-a', position: 1 });
  });

  it('says so when nothing is queued', async () => {
    const workflowId = await publish(env, org, { ...keyed, key: 'queued-none', name: 'Nothing queued' });
    await ui.page.goto(`${ui.base}/console/workflows/${workflowId}`);
    await ui.page.waitForSelector('section.queue .state.empty');
    assert.equal(await ui.page.textContent('section.queue .state.empty'), 'No queued runs.');
  });
});
