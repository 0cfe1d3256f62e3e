import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../config/limits';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/** Runs at the edge of what a definition may be. */
describe('executions API: runs at the limits', function () {
  this.timeout(120_000);
  const { x, c } = useExecEnv();

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
    await publish(x, c, { name: 'At the limit', key: 'at-limit', steps, connections });
    const id = await execute(x, c, 'at-limit');
    const done = await waitFor(x, c, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    const last = await c.auth(x.t.request.get(`/workflows/executions/${id}/steps/s${chain}`));
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.equal(last.body.record.status, 'skipped');
  });
});
