/**
 * The workflow's modules (the engine and workflows/*.ts) are evaluated once per worker thread and shared
 * by every workflow run (PRELOADED_WORKFLOW_MODULES in worker/worker.ts): the bundle declares them, a
 * run's own module cache no longer holds them (the SDK's reusable V8 context, on the real bundle), their
 * exports are frozen, and concurrent runs of different definitions on one worker stay isolated and replay.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import vm from 'node:vm';
import { parseWorkflowCode } from '@temporalio/worker/lib/worker';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import type { ExecutionInput } from '../../workflows/engine';
import { PRELOADED_WORKFLOW_MODULES, workflowBundle } from '../../worker/worker';
import { executionInput, trigger } from '../support/definitions';
import { useExecutionWorker } from './execution-worker';

/** Webpack's module ids are paths relative to the project root (`./workflows/engine/index.ts`). */
const WORKFLOW_MODULE = /^\.\/workflows\//;

/** The SDK's reusable V8 context, opened up to look at its sandbox (as a workflow run sees it). */
class SandboxProbe extends ReusableVMWorkflowCreator {
  sandbox(): vm.Context {
    return this.context;
  }
}

/** The module ids a workflow run evaluates itself: its module cache after it imported the workflows. */
async function modulesEvaluatedPerRun(): Promise<{ perRun: string[]; engineExportsFrozen: boolean }> {
  // As Worker.create loads a bundle (the source map comes out of the code).
  const probe = await SandboxProbe.create(parseWorkflowCode((await workflowBundle()).code), 5000, new Set());
  try {
    const sandbox = probe.sandbox();
    // What the SDK's activator carries for a run: the run's own module cache (see reusable-vm.js).
    const moduleCache = new Map<string, unknown>();
    sandbox.__TEMPORAL_ACTIVATOR__ = { moduleCache };
    try {
      vm.runInContext('__TEMPORAL__.importWorkflows()', sandbox);
      const engineExportsFrozen = vm.runInContext(
        `Object.isFrozen(__webpack_module_cache__[${JSON.stringify('./workflows/engine/index.ts')}].exports.PLUGINS)`,
        sandbox,
      ) as boolean;
      return { perRun: [...moduleCache.keys()], engineExportsFrozen };
    } finally {
      delete sandbox.__TEMPORAL_ACTIVATOR__;
    }
  } finally {
    await probe.destroy();
  }
}

describe('engine modules shared across workflow runs', function () {
  this.timeout(120_000);

  it('the bundle preloads the engine: its preloadModules requires every listed module, and each is in the bundle', async () => {
    const { code } = await workflowBundle();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(code);
    assert.ok(preload, 'the bundle has a preloadModules function');
    assert.ok(PRELOADED_WORKFLOW_MODULES.length > 0);
    for (const path of PRELOADED_WORKFLOW_MODULES) {
      const id = `./${relative(process.cwd(), path)}`;
      assert.ok(preload[1].includes(JSON.stringify(id)), `preloadModules requires ${id}`);
      assert.ok(code.split('\n').includes(`/***/ ${JSON.stringify(id)}`), `the bundle holds the module ${id}`);
    }
  });

  it("the bundle compiles the project's TypeScript for ES2022, as tsconfig.json does: no object-spread helpers", async () => {
    const { code } = await workflowBundle();
    // swc at the SDK's ES2017 defines `_object_spread` (and `_object_spread_props`) for every `{ ...x }` of workflows/.
    assert.equal(/function _object_spread\b/.test(code), false, 'no object-spread helper in the bundle');
    assert.ok(code.includes('...'), 'object spread is native');
  });

  it("a run evaluates none of the workflow's modules (workflows/, the engine, jsep, acorn, @temporalio/workflow); the shared exports are frozen", async () => {
    const { perRun, engineExportsFrozen } = await modulesEvaluatedPerRun();
    assert.deepEqual(
      perRun.filter((id) => WORKFLOW_MODULE.test(id) || /\/node_modules\/(jsep|acorn|@temporalio\/workflow)\//.test(id)),
      [],
      `no workflow module is evaluated per run: ${perRun.join(', ')}`,
    );
    assert.equal(engineExportsFrozen, true);
  });

  it("the workflow's modules declare no module-scope variable beyond the reviewed ones (no per-run state at module scope)", () => {
    // Each is set and read within one synchronous call, or is a bounded cache's bookkeeping (docs/architecture.md).
    const reviewed = [
      'workflows/engine/evaluate.ts: let operations = 0;',
      'workflows/engine/plugins/registry.ts: let catalog: PluginCatalog | undefined;',
      'workflows/engine/script-templates.ts: let cachedChars = 0;',
    ];
    const workflows = join(__dirname, '../../workflows');
    const found = (readdirSync(workflows, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        readFileSync(join(workflows, file), 'utf8')
          .split('\n')
          .filter((line) => /^(export )?(let|var) /.test(line))
          .map((line) => `workflows/${file}: ${line}`),
      )
      .sort();
    assert.deepEqual(found, reviewed);
  });

  describe('concurrent runs of different definitions on one worker', () => {
    const { start } = useExecutionWorker('local');

    /** Run `index`: its own variable, loop and timer, and expressions both shared with the others (same source) and its own. */
    const definitionOf = (index: number): ExecutionInput =>
      executionInput(
        {
          name: `shared-${index}`,
          steps: [
            trigger(),
            {
              id: `name${index}`,
              type: 'module',
              pluginType: 'set-variable',
              config: { path: 'who', value: `run-${index}` },
              dependsOn: ['start'],
            },
            { id: 'pause', type: 'module', pluginType: 'delay', config: { duration: `${50 + 25 * index}ms` }, dependsOn: [`name${index}`] },
            {
              id: 'each',
              type: 'module',
              pluginType: 'http-request',
              config: { url: `https://example.test/\${{ variables.who }}/\${{ variables.item * ${index + 1} }}` },
              forEach: { expression: 'workflow.inputs.list' },
              dependsOn: ['pause'],
            },
          ],
          outputs: {
            who: '${{ variables.who }}',
            calls: '${{ steps.each.outputs.items }}',
          },
        },
        { inputs: { list: [1, 2, 3] } },
      );

    it('each run sees only its own definition, variables and results', async () => {
      const inputs = [0, 1, 2, 3, 4, 5].map(definitionOf);
      const started = await Promise.all(inputs.map((input) => start(input)));
      const results = await Promise.all(started.map((handle) => handle.result()));
      results.forEach((result, index) => {
        assert.deepEqual(result, {
          who: `run-${index}`,
          calls: [1, 2, 3].map((n) => ({ statusCode: 200, body: { echoed: `https://example.test/run-${index}/${n * (index + 1)}` } })),
        });
      });
    });
  });
});
