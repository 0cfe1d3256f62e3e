import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_LIMITS } from '../../config/limits';
import { trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/** A local HTTP server (mocha hooks) whose requests each take `delayMs`, recording the most in flight at once. */
function useCountingServer(delayMs: number): { baseUrl: string; mostActive: number } {
  const state = { baseUrl: '', mostActive: 0 };
  let server: Server | undefined;
  let active = 0;
  before(async () => {
    const listening = createServer((_req, res) => {
      active += 1;
      state.mostActive = Math.max(state.mostActive, active);
      setTimeout(() => {
        active -= 1;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data: [] }));
      }, delayMs);
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    state.baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return state;
}

/** Runs at the edge of what a definition may be. */
describe('executions API: runs at the limits', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();

  it('runs a definition at the step limit whose long branch is skipped (no stack overflow in the walk)', async () => {
    //   start ──▶ gate ─true──▶ s1 ──▶ s2 ──▶ … ──▶ s<limit-3>
    //                  └─false─▶ done
    const steps: Record<string, Record<string, unknown>> = {
      start: { type: 'trigger', pluginType: 'manual' },
      gate: { type: 'decider', pluginType: 'conditional', config: { expression: 'false' } },
      done: { type: 'module', pluginType: 'no-op' },
    };
    const connections: Array<Record<string, string>> = [
      { from: 'start', to: 'gate' },
      { from: 'gate', to: 'done', sourcePort: 'false' },
      { from: 'gate', to: 's1', sourcePort: 'true' },
    ];
    const chain = DEFAULT_LIMITS.maxSteps - 3;
    for (let index = 1; index <= chain; index++) {
      steps[`s${index}`] = { type: 'module', pluginType: 'no-op' };
      if (index > 1) connections.push({ from: `s${index - 1}`, to: `s${index}` });
    }
    await publish(env, org, { name: 'At the limit', key: 'at-limit', steps, connections });
    const id = await execute(env, org, 'at-limit');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    const last = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/s${chain}`));
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.equal(last.body.record.status, 'skipped');
  });
});

/** Each run limit crossed through the worker, with low values so the tests stay small. */
describe('executions API: run limits', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv({
    limits: {
      maxSubWorkflowDepth: 2,
      maxChildrenPerExecution: 3,
      maxForEachElements: 5,
      maxActivitiesInFlight: 1,
      maxLogMessageBytes: 300,
      maxStepOutputBytes: 2048,
      maxPages: 3,
    },
  });
  // Each call takes 100 ms, so calls that overlap show in `mostActive`.
  const server = useCountingServer(100);

  const failedWith = async (key: string, inputs: Record<string, unknown> = {}) => {
    const done = await waitFor(env, org, await execute(env, org, key, { inputs }), finished);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    return done.error as { type: string; message: string; stepId: string };
  };

  it('stops a workflow that starts itself at the sub-workflow depth (WORKFLOW_MAX_SUBWORKFLOW_DEPTH)', async () => {
    await publish(env, org, {
      name: 'Recurse',
      key: 'recurse',
      steps: [
        trigger(),
        { id: 'again', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'recurse' }, dependsOn: ['start'] },
      ],
    });
    const id = await execute(env, org, 'recurse');
    await waitFor(env, org, id, finished);
    const rows = await env.db.query<Array<{ error: { type: string; message: string } | null }>>(
      `SELECT error FROM executions WHERE organization_id = $1 AND workflow_key = 'recurse' ORDER BY created_at`,
      [org.id],
    );
    assert.equal(rows.length, 3, 'the root and two levels of children');
    assert.equal(rows[2].error?.type, 'SUBWORKFLOW_DEPTH_EXCEEDED');
    assert.match(rows[2].error?.message ?? '', /WORKFLOW_MAX_SUBWORKFLOW_DEPTH/);
  });

  it('refuses a fourth child (WORKFLOW_MAX_CHILDREN_PER_EXECUTION), a sixth forEach element, and a fifth page', async () => {
    await publish(env, org, { name: 'Leaf', key: 'leaf', steps: [trigger()] });
    await publish(env, org, {
      name: 'Many children',
      key: 'many-children',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{}, {}, {}, {}]', returns: 'items' },
          dependsOn: ['start'],
        },
        {
          id: 'children',
          type: 'module',
          pluginType: 'sub-workflow',
          config: { workflowId: 'leaf', maxParallelism: 1 },
          dependsOn: ['items'],
        },
      ],
    });
    const children = await failedWith('many-children');
    assert.deepEqual([children.type, children.stepId], ['SUBWORKFLOW_LIMIT_EXCEEDED', 'children']);

    await publish(env, org, {
      name: 'Long forEach',
      key: 'long-foreach',
      steps: [
        trigger(),
        {
          id: 'each',
          type: 'module',
          pluginType: 'log',
          config: { message: 'item' },
          forEach: { expression: 'workflow.inputs.list' },
          dependsOn: ['start'],
        },
      ],
    });
    const each = await failedWith('long-foreach', { list: [1, 2, 3, 4, 5, 6] });
    assert.equal(each.type, 'FOREACH_LIMIT_EXCEEDED');
    assert.match(each.message, /WORKFLOW_MAX_FOREACH_ELEMENTS/);

    await publish(env, org, {
      name: 'Many pages',
      key: 'many-pages',
      steps: [
        trigger(),
        {
          id: 'pages',
          type: 'module',
          pluginType: 'paginated-fetch',
          config: { url: `${server.baseUrl}/list`, maxPages: 4 },
          dependsOn: ['start'],
        },
      ],
    });
    const pages = await failedWith('many-pages');
    assert.equal(pages.type, 'PLUGIN_CONFIG_INVALID');
    assert.match(pages.message, /WORKFLOW_MAX_PAGES/);
  });

  it('fails a step whose output is over the limit, in the worker and in the workflow (WORKFLOW_MAX_STEP_OUTPUT_BYTES)', async () => {
    await publish(env, org, {
      name: 'Big output',
      key: 'big-output',
      steps: [
        trigger(),
        { id: 'big', type: 'module', pluginType: 'code-exec', config: { code: "return { blob: 'x'.repeat(5000) }" }, dependsOn: ['start'] },
      ],
    });
    const activity = await failedWith('big-output');
    assert.deepEqual([activity.type, activity.stepId], ['STEP_OUTPUT_TOO_LARGE', 'big']);
    await publish(env, org, {
      name: 'Big input',
      key: 'big-input',
      steps: [trigger(), { id: 'next', type: 'module', pluginType: 'no-op', dependsOn: ['start'] }],
    });
    const inline = await failedWith('big-input', { blob: 'x'.repeat(5000) });
    assert.deepEqual([inline.type, inline.stepId], ['STEP_OUTPUT_TOO_LARGE', 'start']);
    assert.match(inline.message, /WORKFLOW_MAX_STEP_OUTPUT_BYTES/);
  });

  it('cuts a long log message, saying so (WORKFLOW_MAX_LOG_MESSAGE_BYTES)', async () => {
    await publish(env, org, {
      name: 'Long log',
      key: 'long-log',
      steps: [
        trigger(),
        { id: 'say', type: 'module', pluginType: 'log', config: { message: '${{ workflow.inputs.text }}' }, dependsOn: ['start'] },
      ],
    });
    const id = await execute(env, org, 'long-log', { inputs: { text: 'é'.repeat(1000) } });
    assert.equal((await waitFor(env, org, id, finished)).status, 'completed');
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    const message = logs.body.data[0].message as string;
    assert.ok(Buffer.byteLength(message) <= 300, `${Buffer.byteLength(message)} bytes`);
    assert.match(message, /^é+ … \[cut: 2000 bytes\]$/);
  });

  it('runs one plugin activity of an execution at a time (WORKFLOW_MAX_ACTIVITIES_IN_FLIGHT)', async () => {
    await publish(env, org, {
      name: 'Fan out calls',
      key: 'fan-out-calls',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{}, {}, {}, {}]', returns: 'items' },
          dependsOn: ['start'],
        },
        {
          id: 'calls',
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.baseUrl}/slow`, maxParallelism: 4 },
          dependsOn: ['items'],
        },
      ],
    });
    server.mostActive = 0;
    const done = await waitFor(env, org, await execute(env, org, 'fan-out-calls'), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(server.mostActive, 1, 'the four calls ran one after another');
  });
});

describe('executions API: the parallelism ceiling', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ limits: { maxParallelism: 2 } });
  const server = useCountingServer(150);

  it("lowers a step's maxParallelism to WORKFLOW_MAX_PARALLELISM", async () => {
    await publish(env, org, {
      name: 'Wide fan-out',
      key: 'wide-fan-out',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{}, {}, {}, {}, {}, {}]', returns: 'items' },
          dependsOn: ['start'],
        },
        {
          id: 'calls',
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.baseUrl}/slow`, maxParallelism: 6 },
          dependsOn: ['items'],
        },
      ],
    });
    const done = await waitFor(env, org, await execute(env, org, 'wide-fan-out'), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(server.mostActive, 2, 'six calls, two at a time');
  });
});
