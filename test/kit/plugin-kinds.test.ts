/**
 * Workflows that use operator plugins of every kind, run locally by the kit
 * with stubs: a stub declares the kind (and its ports or features), the
 * engine treats its step as it treats the plugin's on the server.
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { doc, trigger } from '../support/definitions';

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
        { edges: ['gate:allow->deploy', 'gate:deny->refuse'] },
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

  it('a two-phase wait stub does its side effect, then the step waits on the signal it names (answered by signals)', async () => {
    //   start ─▶ ask ─default─▶ after
    //              └timeout─▶ late
    const definition = doc(
      [
        trigger(),
        { id: 'ask', type: 'module', pluginType: 'chat-ask', config: { question: 'go?', timeout: '1h' }, dependsOn: ['start'] },
        { id: 'after', type: 'module', pluginType: 'no-op' },
        { id: 'late', type: 'module', pluginType: 'no-op' },
      ],
      { edges: ['ask:default->after', 'ask:timeout->late'] },
    );
    const stubs = {
      'chat-ask': {
        twoPhaseWait: true,
        handler: () => ({ outputs: { posted: true }, wait: { signalName: 'chat-answer', correlationKey: 'q-1' } }),
      },
    };
    const seen: Array<{ name: string; correlationKey?: string; timeoutMs?: number }> = [];
    const answered = await runWorkflow({
      definition,
      stubs,
      signals: (wait) => {
        seen.push({ name: wait.name, correlationKey: wait.correlationKey, timeoutMs: wait.timeoutMs });
        return { payload: { answer: 'yes' } };
      },
    });
    assert.equal(answered.status, 'completed', JSON.stringify(answered.error));
    assert.deepEqual(seen, [{ name: 'chat-answer', correlationKey: 'q-1', timeoutMs: 3_600_000 }]);
    assert.equal(answered.steps.ask.outputs.posted, true);
    assert.equal(answered.steps.ask.outputs.answer, 'yes');
    assert.equal(answered.steps.after.status, 'completed');

    const late = await runWorkflow({
      definition: {
        ...definition,
        steps: (definition.steps as Array<Record<string, unknown>>).map((s) =>
          s.id === 'ask' ? { ...s, config: { question: 'go?', timeout: '1h', onTimeout: 'continue' } } : s,
        ),
      },
      stubs,
      signals: () => 'timeout',
    });
    assert.equal(late.status, 'completed', JSON.stringify(late.error));
    assert.equal(late.steps.late.status, 'completed');
    assert.equal(late.steps.after.status, 'skipped');
  });

  it('a stub with nodeState gets the state its previous call returned, each round', async () => {
    //   start ─▶ count ─▶ feed ─▶ more ─true─▶ count (back-edge)
    const seen: unknown[] = [];
    const result = await runWorkflow({
      definition: {
        ...doc(
          [
            trigger(),
            {
              id: 'count',
              type: 'module',
              pluginType: 'set-variable',
              config: { path: 'i', value: '${{ variables.i + 1 }}' },
              dependsOn: ['start'],
            },
            { id: 'feed', type: 'module', pluginType: 'change-feed', config: { url: 'https://feed.test' }, dependsOn: ['count'] },
            { id: 'more', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.i < 3' }, dependsOn: ['feed'] },
          ],
          { edges: ['more:true->count'] },
        ),
        variables: { i: { initialValue: 0 } },
      },
      stubs: {
        'change-feed': {
          nodeState: true,
          handler: (ctx) => {
            seen.push(ctx.state ?? null);
            const page = typeof ctx.state?.page === 'number' ? ctx.state.page + 1 : 1;
            return { outputs: { page }, state: { page } };
          },
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(seen, [null, { page: 1 }, { page: 2 }]);
    assert.deepEqual(result.steps.feed.outputs, { page: 3 });
  });

  it('a trigger stub declares an operator trigger: the run starts from it with the event as its output', async () => {
    //   events (ticket-events trigger) ─▶ note
    const result = await runWorkflow({
      definition: doc([
        {
          id: 'events',
          type: 'trigger',
          pluginType: 'ticket-events',
          config: { apiUrl: 'https://tickets.test', events: ['issue.created'] },
        },
        {
          id: 'note',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'issue', value: '${{ steps.events.outputs.body.issue }}' },
          dependsOn: ['events'],
        },
      ]),
      trigger: 'events',
      inputs: { method: 'POST', body: { issue: 'OPS-1' } },
      stubs: { 'ticket-events': { kind: 'trigger' } },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.equal(result.variables.issue, 'OPS-1');
  });
});
