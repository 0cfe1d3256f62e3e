/**
 * A test file as the compatible engine's authoring guide writes them, run
 * here unchanged but for its import (and mocha's `assert` in place of
 * vitest's `expect`): `runWorkflowE2E({ yamlPath, inputs, stubs })`, stubs
 * keyed by plugin type written `async (step, ctx) => ({ outputs })` or
 * `(ctx) => IStepResult`, a vendor trigger registered with
 * `registryType: 'trigger'`, and assertions on `result.status`, `outputs`,
 * `steps` and `variables`.
 *
 *   trigger ─▶ fetch_release ─▶ is_ready ─true─▶  passed ─▶ resolve (any)
 *                   │                    └false─▶ failed ─┘
 *                   └(fallback)─▶ resolve_outage
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
// In that engine's repositories: import { runWorkflowE2E } from '@nullplatform/workflow-kit/test';
// In yours:                      import { runWorkflowE2E } from 'platform-api/kit/compat';
import { runWorkflowE2E, type IStepResult } from '../../../kit/compat';

const WF_PATH = resolve(__dirname, 'release-check.yaml');

const TRIGGER_STUB = {
  handler: (): IStepResult => ({ status: 'success', outputs: {}, activePorts: ['default'] }),
  registryType: 'trigger' as const,
};

interface Release {
  status: string;
}

async function run(release: Release | Error | ((attempt: number) => Release), resolved: Array<Record<string, unknown>> = []) {
  const attempts: number[] = [];
  const result = await runWorkflowE2E({
    yamlPath: WF_PATH,
    inputs: { release_id: 'r-42' },
    stubs: {
      'np-checklist-trigger': TRIGGER_STUB,
      'np-api-call': async (step, ctx) => {
        if (step.id !== 'fetch_release') throw new Error(`unexpected np-api-call step ${step.id}`);
        attempts.push(ctx.attempt);
        await Promise.resolve();
        if (release instanceof Error) throw release;
        const body = typeof release === 'function' ? release(ctx.attempt) : release;
        return { outputs: { status: 200, body, path: ctx.inputs.path } };
      },
      'np-checklist-item-resolve': (ctx): IStepResult => {
        resolved.push({ step: ctx.stepId, ...ctx.inputs });
        return { status: 'success', outputs: { ok: true, statusCode: 200 }, activePorts: ['default'] };
      },
    },
  });
  return { result, attempts, resolved };
}

describe('runWorkflowE2E: a test written for the compatible engine', () => {
  it('passes a ready release: outputs, steps and variables as that harness reports them', async () => {
    const { result, resolved } = await run({ status: 'ready' });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { verdict: 'passed', resolved: true });
    assert.equal(result.variables.verdict, 'passed');
    // `{ outputs }` from the stub is the step's outputs, not wrapped again.
    assert.deepEqual(result.steps.fetch_release.outputs, { status: 200, body: { status: 'ready' }, path: '/release/r-42' });
    assert.equal(result.steps.is_ready.status, 'completed');
    assert.deepEqual(result.steps.is_ready.activePorts, ['true']);
    assert.deepEqual(result.steps.resolve.inputs, { status: 'passed', message: 'release r-42: passed' });
    // A step on a path not taken did not run: it has no record.
    assert.equal(result.steps.failed, undefined);
    assert.equal(result.steps.resolve_outage, undefined);
    assert.deepEqual(result.finalSnapshot.steps, result.steps);
    assert.equal(result.finalSnapshot.variables.verdict, 'passed');
    assert.deepEqual(resolved, [{ step: 'resolve', status: 'passed', message: 'release r-42: passed' }]);
  });

  it('fails a release that is not ready (pluginStubs, as that harness also names the option)', async () => {
    const resolved: Array<Record<string, unknown>> = [];
    const result = await runWorkflowE2E({
      yamlPath: WF_PATH,
      inputs: { release_id: 'r-7' },
      pluginStubs: {
        'np-checklist-trigger': TRIGGER_STUB,
        'np-api-call': { handler: () => ({ outputs: { status: 200, body: { status: 'draft' } } }), executeMode: 'all' },
        'np-checklist-item-resolve': (ctx) => {
          resolved.push(ctx.inputs);
          return { outputs: { ok: true } };
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { verdict: 'failed', resolved: true });
    assert.equal(result.steps.passed, undefined);
    assert.deepEqual(resolved, [{ status: 'failed', message: 'release r-7: failed' }]);
  });

  it('retries the API under its jittered policy, each try a higher attempt', async () => {
    const { result, attempts } = await run((attempt) => {
      if (attempt < 3) throw new Error(`503 on attempt ${attempt}`);
      return { status: 'ready' };
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.equal(result.outputs.verdict, 'passed');
  });

  it('routes a failure that used up its retries to the fallback step', async () => {
    const { result, attempts, resolved } = await run(new Error('NP_API_5XX: gateway timeout'));
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.equal(result.steps.fetch_release.status, 'failed');
    assert.equal(result.steps.fetch_release.error?.message, 'NP_API_5XX: gateway timeout');
    assert.equal(result.steps.is_ready, undefined);
    assert.deepEqual(resolved, [{ step: 'resolve_outage', status: 'skipped', message: 'NP_API_5XX: gateway timeout' }]);
  });
});

describe('runWorkflowE2E: what it refuses, saying what to write instead', () => {
  it('refuses an option that harness does not document, pointing to runWorkflow', async () => {
    await assert.rejects(
      runWorkflowE2E({ yamlPath: WF_PATH, inputs: {}, vars: { REGION: 'eu' } } as never),
      /does not know vars\. For more \(vars, secrets, signal answers, sub-workflows, the clock\) call runWorkflow\(/,
    );
    await assert.rejects(
      runWorkflowE2E({ yamlPath: WF_PATH, stubs: {}, pluginStubs: {} }),
      /stubs or pluginStubs \(the same option\), not both/,
    );
    await assert.rejects(
      runWorkflowE2E({ yamlPath: WF_PATH, stubs: { 'np-checklist-trigger': { handler: () => ({}), registry: 'trigger' } as never } }),
      /stub "np-checklist-trigger": registry is not a stub field here; a stub takes handler, registryType, executeMode/,
    );
  });

  it('fails the step of a stub whose result has no status, instead of guessing what it meant', async () => {
    let calls = 0;
    const result = await runWorkflowE2E({
      yamlPath: WF_PATH,
      inputs: { release_id: 'r-1' },
      stubs: {
        'np-checklist-trigger': TRIGGER_STUB,
        'np-api-call': () => {
          calls += 1;
          return { statusCode: 200, body: { status: 'ready' } };
        },
        'np-checklist-item-resolve': () => ({ outputs: {} }),
      },
    });
    // The step fails (not retried: the stub would answer the same), and its fallback runs as for any failure.
    const fetch = result.steps.fetch_release;
    assert.equal(fetch.status, 'failed');
    assert.equal(fetch.error?.code, 'STUB_INVALID_RESULT');
    assert.equal(calls, 1);
    assert.equal(result.steps.resolve_outage.status, 'completed');
    assert.match(
      String(fetch.error?.message),
      /the stub of np-api-call \(step "fetch_release"\) returned an object without a status \(statusCode, body\); under runWorkflowE2E a stub returns a step result/,
    );
  });
});
