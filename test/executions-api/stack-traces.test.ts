/**
 * Stack traces inside workflow runs are off by default (workflows/no-stack-traces.ts, preloaded
 * into the worker's shared V8 context): the `__stack_trace` query of a waiting run answers no
 * frames. WORKFLOW_STACK_TRACES=true builds the bundle without it, and the query shows where the
 * run's code waits, as the Temporal UI's "Stack Trace" tab does.
 */
import assert from 'node:assert/strict';
import { execute, finished, publish, useExecEnv, waitFor, type ExecEnv, type OrgContext } from './support';

const waiting = (key: string) => ({
  name: 'Waits',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '1h' } },
  },
  connections: [{ from: 'start', to: 'approval' }],
});

/** The `__stack_trace` query of a run parked on a signal wait, then the run cancelled. */
async function stackOfWaitingRun(env: ExecEnv, org: OrgContext, key: string): Promise<string> {
  const id = await execute(env, org, await publish(env, org, waiting(key)));
  await waitFor(env, org, id, (body) => body.status === 'waiting');
  const stack = await env.temporal.client.workflow.getHandle(id).query<string>('__stack_trace');
  await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({});
  await waitFor(env, org, id, finished);
  return stack;
}

const FRAME = /^\s+at /m;

describe('workflow runs: stack traces off by default', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  it('answers the stack trace query of a waiting run with no frames', async () => {
    const stack = await stackOfWaitingRun(env, org, 'stack-off');
    assert.doesNotMatch(stack, FRAME, stack);
  });
});

describe('workflow runs: stack traces on (WORKFLOW_STACK_TRACES=true)', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ stackTraces: true });

  it('answers the stack trace query of a waiting run with its frames', async () => {
    const stack = await stackOfWaitingRun(env, org, 'stack-on');
    assert.match(stack, FRAME, stack);
  });
});
