/**
 * Local and durable runs agree. Written as the compatible engine's tests are
 * (its "Temporal parity" blocks: the same `runWorkflowE2E` call, once more
 * with `executor: 'temporal'`), importing only the kit's compat entry: each
 * workflow runs in-process and on a real Temporal worker with the project's
 * workflow bundle, the stubs as its plugin activities, and both results must
 * say the same (status, outputs, variables, every step's record, the log
 * lines, what each stub was called with).
 *
 * The Temporal here is the one the kit resolves as `npm start` does: the
 * TEMPORAL_ADDRESS given, else the Temporal CLI dev server (TEMPORAL_SERVER
 * picks the lane, as for the rest of this folder).
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
// In that engine's repositories: import { runWorkflowE2E } from '@nullplatform/workflow-kit/test';
import {
  closeTemporalExecutor,
  normalizeWorkflowDocument,
  parseYamlDocument,
  runWorkflowE2E,
  schemaValidate,
  type IStepResult,
  type IWorkflowDefinition,
  type WorkflowE2EResult,
  WorkflowRunFailed,
} from '../../../kit/compat';
import { readFileSync } from 'node:fs';

type Executor = 'in-process' | 'temporal';

const ok = (outputs: Record<string, unknown>, items?: Array<Record<string, unknown>>): IStepResult => ({
  status: 'success',
  outputs,
  ...(items !== undefined ? { items } : {}),
  activePorts: ['default'],
});

const passthroughTrigger = { handler: () => ok({}), registryType: 'trigger' as const };

function loadYaml(filename: string): IWorkflowDefinition {
  const parsed = parseYamlDocument(readFileSync(resolve(__dirname, filename), 'utf8'));
  const errors = parsed.errors.filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`YAML parse errors in ${filename}: ${JSON.stringify(errors)}`);
  const validated = schemaValidate(normalizeWorkflowDocument(parsed.document));
  if (!validated.ok) throw new Error(`Schema errors in ${filename}: ${JSON.stringify(validated.errors)}`);
  return validated.value!;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** What both executors must agree on: everything but the run's id and its clock (a date-time is alike any other). */
function comparable(result: WorkflowE2EResult): unknown {
  const { executionId: _id, finalSnapshot: _snapshot, logs, ...rest } = result;
  return JSON.parse(
    JSON.stringify({ ...rest, logs: logs.map(({ stepId, level, message }) => ({ stepId, level, message })) }, (_key, value: unknown) =>
      typeof value === 'string' && DATE_TIME.test(value) ? '<date-time>' : value,
    ),
  );
}

/** Runs `run` on both executors and asserts they agree; answers the in-process result and each side's stub calls. */
async function onBoth<T>(run: (executor: Executor) => Promise<{ result: WorkflowE2EResult; calls: T }>) {
  const local = await run('in-process');
  const durable = await run('temporal');
  assert.deepEqual(comparable(durable.result), comparable(local.result));
  assert.deepEqual(durable.calls, local.calls);
  assert.notEqual(durable.result.executionId, local.result.executionId);
  return local;
}

describe('kit parity: the same test in-process and on a real Temporal worker', function () {
  // The first Temporal run bundles the workflow code and may start a dev server: seconds to a minute on a busy machine.
  this.timeout(240_000);
  after(() => closeTemporalExecutor());

  it('the fixtures parse and validate through parseYamlDocument → normalizeWorkflowDocument → schemaValidate', () => {
    for (const file of ['release-gate.yaml', 'inventory-sweep.yaml', 'flaky-ticket.yaml']) {
      const def = loadYaml(file);
      assert.ok(Object.keys(def.steps).length > 0, file);
    }
  });

  for (const [status, verdict] of [
    ['ready', 'passed'],
    ['blocked', 'failed'],
  ] as const) {
    it(`release gate, ${status} release: the same branch, variables, outputs and stub calls (${verdict})`, async () => {
      const { result, calls } = await onBoth(async (executor) => {
        const calls: Array<Record<string, unknown>> = [];
        const result = await runWorkflowE2E({
          yamlPath: resolve(__dirname, 'release-gate.yaml'),
          executor,
          inputs: { release_id: 'r-42' },
          pluginStubs: {
            'np-checklist-trigger': passthroughTrigger,
            'np-api-call': async (step, ctx) => {
              calls.push({ step: step.id, path: ctx.inputs.path, attempt: ctx.attempt });
              await Promise.resolve();
              return { outputs: { status: 200, body: { status } } };
            },
            'np-checklist-item-resolve': (ctx): IStepResult => {
              calls.push({ step: ctx.stepId, ...ctx.inputs, verdictSeen: ctx.variables.verdict });
              return ok({ ok: true });
            },
          },
        });
        return { result, calls };
      });
      assert.equal(result.status, 'completed', JSON.stringify(result.error));
      assert.deepEqual(result.outputs, { verdict, resolved: true });
      assert.equal(result.steps[verdict === 'passed' ? 'failed' : 'passed'], undefined);
      assert.deepEqual(calls, [
        { step: 'fetch_release', path: '/release/r-42', attempt: 1 },
        { step: 'resolve', status: verdict, release: 'r-42', verdictSeen: verdict },
      ]);
    });
  }

  it('inventory sweep: real code-exec steps, a stub called once per item, the same totals', async () => {
    const { result, calls } = await onBoth(async (executor) => {
      const calls: string[] = [];
      const result = await runWorkflowE2E({
        yamlPath: resolve(__dirname, 'inventory-sweep.yaml'),
        executor,
        inputs: { services: ['api', 'billing', 'search'] },
        stubs: {
          'np-scan-service': (ctx): IStepResult => {
            const name = String(ctx.item?.name);
            calls.push(name);
            return ok({ name, findings: name.length });
          },
        },
      });
      return { result, calls: calls.sort() };
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { findings: 16, scanned: ['api', 'billing', 'search'] });
    assert.deepEqual(calls, ['api', 'billing', 'search']);
    assert.equal(result.steps.scan.items.length, 3);
  });

  it('flaky ticket: a retried vendor call, stubbed signal-wait and sub-workflow, the same attempts', async () => {
    const { result, calls } = await onBoth(async (executor) => {
      const calls: Array<Record<string, unknown>> = [];
      const result = await runWorkflowE2E({
        yamlPath: resolve(__dirname, 'flaky-ticket.yaml'),
        executor,
        inputs: { summary: 'Investigate flaky deploy' },
        pluginStubs: {
          'jira-create-issue': (ctx): IStepResult => {
            calls.push({ step: ctx.stepId, attempt: ctx.attempt });
            if (ctx.attempt < 2) throw new Error('Jira answered 503');
            return ok({ key: 'TEST-1' });
          },
          'signal-wait': {
            registryType: 'module',
            outputPorts: [{ name: 'default' }, { name: 'timeout' }],
            handler: () => ok({ name: 'jira-callback', payload: {} }),
          },
          'sub-workflow': {
            handler: (ctx) => {
              calls.push({ step: ctx.stepId, ...ctx.inputs });
              return ok({ notified: true });
            },
            executeMode: 'all',
          },
          'jira-close-issue': (ctx): IStepResult => {
            calls.push({ step: ctx.stepId, ...ctx.inputs });
            return ok({ closed: true });
          },
        },
      });
      return { result, calls };
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { key: 'TEST-1', closed: true });
    assert.deepEqual(calls, [
      { step: 'create_issue', attempt: 1 },
      { step: 'create_issue', attempt: 2 },
      { step: 'notify', key: 'TEST-1' },
      { step: 'close', key: 'TEST-1', poked: 'jira-callback' },
    ]);
  });

  it('flaky ticket, a vendor call that never succeeds: both reject alike, with the same failed run, step and error', async () => {
    const { result, calls } = await onBoth(async (executor) => {
      const calls: number[] = [];
      const failure = await runWorkflowE2E({
        yamlPath: resolve(__dirname, 'flaky-ticket.yaml'),
        executor,
        inputs: { summary: 'Investigate flaky deploy' },
        stubs: {
          'jira-create-issue': (ctx): IStepResult => {
            calls.push(ctx.attempt);
            return { status: 'failure', error: { message: 'project TEST is archived', code: 'JIRA_REFUSED', retryable: false } };
          },
          'signal-wait': () => ok({}),
          'sub-workflow': () => ok({}),
          'jira-close-issue': () => ok({}),
        },
      }).then(
        () => assert.fail('a failed execution rejects'),
        (error: WorkflowRunFailed) => error,
      );
      assert.ok(failure instanceof WorkflowRunFailed, String(failure));
      assert.match(failure.message, /step "create_issue" failed: project TEST is archived/);
      return { result: failure.result as WorkflowE2EResult, calls };
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.stepId, 'create_issue');
    assert.match(result.error?.message ?? '', /archived/);
    assert.deepEqual(calls, [1]);
    assert.equal(result.steps.close, undefined);
  });

  it('closeTemporalExecutor ends a durable run still in flight (a wait nobody answers): it rejects, nothing hangs', async () => {
    let created!: () => void;
    const issueCreated = new Promise<void>((resolve) => (created = resolve));
    const run = runWorkflowE2E({
      yamlPath: resolve(__dirname, 'flaky-ticket.yaml'),
      executor: 'temporal',
      inputs: { summary: 'never answered' },
      // No signal-wait stub: the real wait parks the run for its two hours.
      stubs: {
        'jira-create-issue': () => {
          created();
          return ok({ key: 'TEST-2' });
        },
        'sub-workflow': () => ok({}),
        'jira-close-issue': () => ok({}),
      },
    });
    const outcome = run.then(
      () => undefined,
      (error: unknown) => error,
    );
    await issueCreated;
    await closeTemporalExecutor();
    assert.match(String(await outcome), /did not finish on Temporal: the kit closed its Temporal executor/);
  });
});
