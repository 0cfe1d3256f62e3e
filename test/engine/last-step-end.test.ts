/**
 * Engine rule `end-with-last-light-step` (workflows/engine/runtime/last-step-end.ts): a light call whose success
 * ends the run carries what its activity needs to write the step's last records and the end (`endsRun`), and
 * `lastStepTail` computes from the call's result exactly the records the workflow settles after it. Runs of the
 * older rules carry nothing new.
 */
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../config/limits';
import { ENGINE_RULES, lastStepTail, runLimitsFrom, type ActivityCall, type PluginResult } from '../../workflows/engine';
import { chain, doc, step, trigger } from '../support/definitions';
import { runDefinition } from '../support/engine-run';

const limits = runLimitsFrom(DEFAULT_LIMITS);
const http = (id: string, extra: Record<string, unknown> = {}) => step(id, 'http-request', { url: 'https://example.test/' }, extra);
const answer = (call: ActivityCall): PluginResult => ({
  status: 'success',
  outputs: { status: 200, body: { step: call.stepId } },
  logs: [{ level: 'info', message: `GET for ${call.stepId}` }],
});

async function run(definition: Record<string, unknown>, engineRules = ENGINE_RULES) {
  return runDefinition(definition, {}, { activities: { 'http-request': answer } }, { limits, engineRules });
}

describe('engine: the last light step ends the run (end-with-last-light-step)', () => {
  it('marks only the call of the last step, and its tail is what the workflow records after the call', async () => {
    const { outcome, calls, events, logs } = await run({ name: 'three', steps: chain(trigger(), http('a'), http('b'), http('c')) });
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(
      calls.map((call) => [call.stepId, call.light !== undefined, call.endsRun !== undefined]),
      [
        ['a', true, false],
        ['b', true, false],
        ['c', true, true],
      ],
    );
    const end = calls[2].endsRun!;
    assert.equal(end.record.status, 'running');
    assert.equal(end.record.stepId, 'c');
    // What the workflow emitted for c after its call: its plugin's log line and the completed record.
    const completed = events.filter((event) => event.type === 'step.completed' && event.stepId === 'c');
    assert.equal(completed.length, 1);
    const at = completed[0].at;
    const tail = lastStepTail(end, 'c', answer(calls[2]), at);
    assert.ok(tail);
    assert.deepEqual(tail.events, completed);
    const cLogs = logs.filter((entry) => entry.stepId === 'c').map((entry) => ({ ...entry, timestamp: at }));
    assert.deepEqual(tail.logs, cLogs);
  });

  it('projects the output as the workflow does', async () => {
    const { calls, events } = await run({ name: 'one', steps: chain(trigger(), http('only', { outputProjection: ['body'] })) });
    const end = calls[0].endsRun!;
    assert.deepEqual(end.outputProjection, ['body']);
    const completed = events.find((event) => event.type === 'step.completed' && event.stepId === 'only')!;
    assert.deepEqual(lastStepTail(end, 'only', answer(calls[0]), completed.at)?.events, [completed]);
  });

  it('is not asked of runs of the older rules', async () => {
    const { calls } = await run({ name: 'one', steps: chain(trigger(), http('only')) }, 4);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].light !== undefined, true);
    assert.equal(calls[0].endsRun, undefined);
  });

  it('is not asked when the run declares outputs, a step follows, or another step runs beside it', async () => {
    const withOutputs = await run({
      name: 'out',
      steps: chain(trigger(), http('only')),
      outputs: { code: '{{ steps.only.outputs.status }}' },
    });
    assert.equal(withOutputs.calls[0].endsRun, undefined);
    // Two last steps started together: neither is alone, whichever is launched first.
    const parallel = await run(doc([trigger(), http('left', { dependsOn: ['start'] }), http('right', { dependsOn: ['start'] })]));
    assert.deepEqual(
      parallel.calls.map((call) => [call.stepId, call.endsRun]),
      [
        ['left', undefined],
        ['right', undefined],
      ],
    );
    // A fallback step after it (an error edge): its failure would go on.
    const fallback = await run(
      doc([trigger(), http('call', { dependsOn: ['start'], errorHandling: { fallbackStep: 'log' } }), step('log', 'no-op')]),
    );
    assert.equal(fallback.calls[0].endsRun, undefined);
  });

  it('has no tail when the call did not complete the step in one attempt', async () => {
    const { calls } = await run({ name: 'one', steps: chain(trigger(), http('only')) });
    const end = calls[0].endsRun!;
    const at = '2026-01-01T00:00:01.000Z';
    assert.equal(lastStepTail(end, 'only', { status: 'failure', error: { code: 'HTTP_ERROR', message: 'no' } }, at), undefined);
    assert.equal(lastStepTail(end, 'only', { ...answer(calls[0]), attempt: 2 }, at), undefined);
    // Over the run's output limit the step fails (STEP_OUTPUT_TOO_LARGE): the workflow ends the run.
    assert.equal(lastStepTail(end, 'only', answer(calls[0]), at, 10), undefined);
    assert.ok(lastStepTail(end, 'only', answer(calls[0]), at, 10_000));
  });
});
