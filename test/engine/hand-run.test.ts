/**
 * Starts by hand in the pure engine: which trigger a hand-run fires (workflows/engine/hand-run.ts), the payload it
 * gets, and a run whose start fires no trigger ends (failed, saying why) instead of throwing in the workflow task.
 *
 *   tick (cron) ──▶ note (log)         hook (webhook) ──▶ note (log)         tick (cron) ─┐
 *                                                                           hook (webhook)┴▶ note (log)
 */
import assert from 'node:assert/strict';
import { handRunPayload, handRunTrigger, type TriggerInfo } from '../../workflows/engine';
import { validDefinition } from '../support/definitions';
import { runDefinition } from '../support/engine-run';

const note = { type: 'module', pluginType: 'log', config: { message: 'ran' } };
const tick = { type: 'trigger', pluginType: 'cron', config: { schedule: '0 * * * *' } };
const hook = { type: 'trigger', pluginType: 'webhook', config: { method: 'PUT' } };
const cronOnly = { name: 'Cron only', steps: { tick, note }, connections: [{ from: 'tick', to: 'note' }] };
const webhookOnly = { name: 'Webhook only', steps: { hook, note }, connections: [{ from: 'hook', to: 'note' }] };
const both = {
  name: 'Cron and webhook',
  steps: { tick, hook, note: { ...note, joinStrategy: 'any' } },
  connections: [
    { from: 'tick', to: 'note' },
    { from: 'hook', to: 'note' },
  ],
};

describe('engine: starts by hand', () => {
  it('fires the only trigger, the manual one first, the named one; refuses several unnamed or an unknown name', () => {
    assert.deepEqual(handRunTrigger(validDefinition(cronOnly)), { ok: true, step: { id: 'tick', pluginType: 'cron' } });
    assert.deepEqual(handRunTrigger(validDefinition(webhookOnly)), { ok: true, step: { id: 'hook', pluginType: 'webhook' } });
    const triggers = [
      { id: 'tick', pluginType: 'cron' },
      { id: 'hook', pluginType: 'webhook' },
    ];
    assert.deepEqual(handRunTrigger(validDefinition(both)), { ok: false, reason: 'ambiguous', triggers });
    assert.deepEqual(handRunTrigger(validDefinition(both), 'hook'), { ok: true, step: { id: 'hook', pluginType: 'webhook' } });
    assert.deepEqual(handRunTrigger(validDefinition(both), 'note'), { ok: false, reason: 'unknown', triggers });
    const withManual = {
      ...both,
      steps: { ...both.steps, go: { type: 'trigger', pluginType: 'manual' } },
      connections: [...both.connections, { from: 'go', to: 'note' }],
    };
    assert.deepEqual(handRunTrigger(validDefinition(withManual)), { ok: true, step: { id: 'go', pluginType: 'manual' } });
  });

  it('gives a cron trigger the payload of a tick now, a webhook trigger a request with the inputs as body', () => {
    const now = new Date('2026-03-01T10:20:30.456Z');
    const cron = validDefinition(cronOnly);
    assert.deepEqual(handRunPayload(cron, { id: 'tick', pluginType: 'cron' }, { a: 1 }, now), {
      firedAt: '2026-03-01T10:20:30.000Z',
      schedule: '0 * * * *',
    });
    const web = validDefinition(webhookOnly);
    assert.deepEqual(handRunPayload(web, { id: 'hook', pluginType: 'webhook' }, { a: 1 }, now), {
      method: 'PUT',
      headers: {},
      query: {},
      body: { a: 1 },
    });
  });

  it('runs a cron-only workflow started by hand with its trigger fired', async () => {
    const trigger: TriggerInfo = {
      stepId: 'tick',
      source: 'manual',
      payload: { firedAt: '2026-01-01T00:00:00.000Z', schedule: '0 * * * *' },
      receivedAt: '2026-01-01T00:00:00Z',
    };
    const { outcome, ctx } = await runDefinition(
      { ...cronOnly, outputs: { schedule: '${{ trigger.payload.schedule }}' } },
      {},
      {},
      { trigger },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.deepEqual(outcome.outputs, { schedule: '0 * * * *' });
    assert.equal(ctx.steps.note.status, 'completed');
  });

  it('ends a run whose start fires no trigger as failed, naming the triggers, rather than throwing', async () => {
    // A manual start naming no trigger of a cron-only revision: the start of every run before hand-runs fired one.
    const { outcome } = await runDefinition(cronOnly);
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.error?.type, 'NO_TRIGGER_FIRED');
    assert.match(outcome.error?.message ?? '', /tick \(cron\)/);
  });
});
