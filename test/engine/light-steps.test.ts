/**
 * Which plugin calls run as light steps (local activities): built-in short
 * network calls (http-request, paginated-fetch) whose step timeout is at most
 * the run's light-step ceiling. A longer timeout, the default timeout, a heavy
 * plugin, a ceiling of 0 and runs whose input predates light steps keep
 * ordinary activities.
 */
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../config/limits';
import { runLimitsFrom, type RunLimits } from '../../workflows/engine';
import { chain, step, trigger } from '../support/definitions';
import { runDefinition } from '../support/engine-run';

const ok = () => ({ status: 'success' as const, outputs: {} });
const fakes = { activities: { 'http-request': ok, 'paginated-fetch': ok, 'code-exec': ok } };

async function lightCalls(limits: RunLimits | undefined, ...steps: ReturnType<typeof step>[]) {
  const doc = { name: 'light', steps: chain(trigger(), ...steps), variables: { list: { initialValue: [1, 2, 3] } } };
  const { outcome, calls } = await runDefinition(doc, {}, fakes, { limits });
  assert.equal(outcome.status, 'completed');
  return calls;
}

async function lightness(limits: RunLimits | undefined, ...steps: ReturnType<typeof step>[]): Promise<Record<string, boolean>> {
  return Object.fromEntries((await lightCalls(limits, ...steps)).map((call) => [call.stepId, call.light !== undefined]));
}

describe('engine: light steps', () => {
  const limits = runLimitsFrom(DEFAULT_LIMITS);
  const http = (id: string, extra: Record<string, unknown> = {}) => step(id, 'http-request', { url: 'https://example.test/' }, extra);

  it('runs short built-in network calls light, up to the ceiling (default 10 s)', async () => {
    assert.equal(limits.lightStepMaxTimeoutMs, 10_000);
    assert.deepEqual(
      await lightness(
        limits,
        http('short', { timeout: '2s' }),
        http('atCeiling', { timeout: '10s' }),
        http('over', { timeout: '10001ms' }),
        http('noTimeout'),
        step('pages', 'paginated-fetch', { url: 'https://example.test/' }, { timeout: '5s' }),
        step('code', 'code-exec', { code: 'return {}' }, { timeout: '1s' }),
      ),
      { short: true, atCeiling: true, over: false, noTimeout: false, pages: true, code: false },
    );
  });

  it('names each light call by its step and activation, and runs the calls of a forEach as activities', async () => {
    const calls = await lightCalls(
      limits,
      http('one', { timeout: '2s' }),
      http('each', { timeout: '2s', forEach: { expression: '${{ variables.list }}', parallel: true, maxConcurrency: 3 } }),
    );
    assert.deepEqual(
      calls.map((call) => [call.stepId, call.light]),
      [
        ['one', { callKey: 'one#1' }],
        ['each', undefined],
        ['each', undefined],
        ['each', undefined],
      ],
    );
  });

  it('runs none light with a ceiling of 0, or for a run whose input carries no ceiling', async () => {
    const short = http('short', { timeout: '1s' });
    assert.deepEqual(await lightness({ ...limits, lightStepMaxTimeoutMs: 0 }, short), { short: false });
    const { lightStepMaxTimeoutMs, ...older } = limits;
    assert.equal(lightStepMaxTimeoutMs, 10_000);
    assert.deepEqual(await lightness(older, short), { short: false });
    assert.deepEqual(await lightness(undefined, short), { short: false });
  });
});
