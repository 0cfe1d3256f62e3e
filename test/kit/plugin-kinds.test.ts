/**
 * Workflows that use operator plugins of every kind, run locally by the kit
 * with stubs: a stub declares the kind (and its ports or features), the
 * engine treats its step as it treats the plugin's on the server.
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { connections, trigger } from '../support/definitions';

function doc(steps: Array<Record<string, unknown>>, edges: string[] = []): Record<string, unknown> {
  return { name: 'test', path: '/kit', steps, connections: connections(...edges) };
}

describe('kit: operator plugin kinds with stubs', () => {
  it('a decider stub routes the items it got to the ports it answers', async () => {
    //   start ─▶ gate ─allow─▶ deploy
    //               └deny──▶ refuse
    const result = await runWorkflow({
      definition: doc(
        [
          trigger(),
          { id: 'gate', type: 'decider', pluginType: 'policy-gate', config: { url: 'https://policy.test' }, dependsOn: ['start'] },
          { id: 'deploy', type: 'module', pluginType: 'no-op' },
          { id: 'refuse', type: 'module', pluginType: 'no-op' },
        ],
        ['gate:allow->deploy', 'gate:deny->refuse'],
      ),
      inputs: { service: 'api' },
      stubs: {
        'policy-gate': {
          kind: 'decider',
          ports: { outputs: [{ name: 'allow' }, { name: 'deny' }] },
          handler: (ctx) => ({ activePorts: [ctx.inputs.service === 'api' ? 'allow' : 'deny'], outputs: { decision: 'allow' } }),
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.equal(result.steps.deploy.status, 'completed');
    assert.equal(result.steps.refuse.status, 'skipped');
    assert.deepEqual(result.steps.deploy.items, [{ service: 'api' }]);
    assert.deepEqual(result.steps.gate.outputs, { decision: 'allow', matchedPort: 'allow', activePorts: ['allow'] });
  });
});
