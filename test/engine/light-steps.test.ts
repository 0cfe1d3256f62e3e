/**
 * Which plugin calls run as light steps (local activities): built-in short
 * network calls (http-request, paginated-fetch) whose step timeout is at most
 * the run's light-step ceiling; without a step timeout, an http-request's own
 * call timeout (default 30 s) counts. A longer timeout, a heavy plugin, a
 * ceiling of 0 and runs whose input predates light steps keep ordinary
 * activities; runs whose input predates the call-timeout rule keep comparing
 * the 5-minute default.
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

  it('runs short built-in network calls light, up to the ceiling (default 30 s)', async () => {
    assert.equal(limits.lightStepMaxTimeoutMs, 30_000);
    assert.deepEqual(
      await lightness(
        limits,
        http('short', { timeout: '2s' }),
        http('atCeiling', { timeout: '30s' }),
        http('over', { timeout: '30001ms' }),
        step('pages', 'paginated-fetch', { url: 'https://example.test/' }, { timeout: '5s' }),
        step('code', 'code-exec', { code: 'return {}' }, { timeout: '1s' }),
      ),
      { short: true, atCeiling: true, over: false, pages: true, code: false },
    );
  });

  it('without a step timeout, compares the call timeout of an http-request (default 30 s); the step timeout wins when set', async () => {
    const calling = (id: string, timeout: string | undefined, extra: Record<string, unknown> = {}) =>
      step(id, 'http-request', { url: 'https://example.test/', ...(timeout ? { timeout } : {}) }, extra);
    assert.deepEqual(
      await lightness(
        limits,
        calling('byDefault', undefined),
        calling('shortCall', '5s'),
        calling('longCall', '45s'),
        calling('longStep', '5s', { timeout: '60s' }),
        calling('legacyLongStep', undefined, { metadata: { executionTimeoutMs: 60_000 } }),
        step('pages', 'paginated-fetch', { url: 'https://example.test/' }),
      ),
      { byDefault: true, shortCall: true, longCall: false, longStep: false, legacyLongStep: false, pages: false },
    );
    // A run started before this rule compared the 5-minute default: its steps replay as the activities they were.
    const { lightStepRule, ...before } = limits;
    assert.equal(lightStepRule, 'call-timeout');
    assert.deepEqual(
      await lightness({ ...before, lightStepMaxTimeoutMs: 10_000 }, calling('byDefault', undefined), calling('shortCall', '5s')),
      {
        byDefault: false,
        shortCall: false,
      },
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
    assert.equal(lightStepMaxTimeoutMs, 30_000);
    assert.deepEqual(await lightness(older, short), { short: false });
    assert.deepEqual(await lightness(undefined, short), { short: false });
  });
});
