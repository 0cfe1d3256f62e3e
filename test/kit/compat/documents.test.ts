/**
 * The compatible engine's document helpers from the compat entry, called as
 * its tests call them (`parseYamlDocument(yaml)` → `normalizeWorkflowDocument(parsed.document)`
 * → `schemaValidate(normalized)`), and the harness options this round added:
 * `executor` and a stub's `outputPorts`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  WorkflowRunFailed,
  normalizeWorkflowDocument,
  parseYamlDocument,
  runWorkflowE2E,
  schemaValidate,
  type WorkflowE2EResult,
} from '../../../kit/compat';

const RELEASE_CHECK = resolve(__dirname, 'release-check.yaml');

describe('compat: parseYamlDocument, normalizeWorkflowDocument, schemaValidate', () => {
  it('loads a published-style definition as that engine’s tests do: ok, the normalized definition as value', () => {
    const parsed = parseYamlDocument(readFileSync(RELEASE_CHECK, 'utf8'));
    assert.deepEqual(parsed.errors, []);
    assert.equal((parsed.document as { id: string }).id, 'release-check');
    const normalized = normalizeWorkflowDocument(parsed.document);
    // Steps by id, camelCase structural keys.
    assert.equal(normalized.steps.fetch_release.pluginType, 'np-api-call');
    const validated = schemaValidate(normalized);
    assert.equal(validated.ok, true, JSON.stringify(validated.errors));
    assert.deepEqual(Object.keys(validated.value!.steps).sort(), Object.keys(normalized.steps).sort());
    // Its vendor plugins (np-checklist-trigger, np-api-call…) are taken as plugins of their step's kind.
    assert.deepEqual(validated.errors, []);
    // Validating what normalizing made does not report its rebuilt triggers as a value sent and ignored.
    assert.deepEqual(
      validated.warnings.map((warning) => warning.code).filter((code) => code === 'TRIGGERS_DISCARDED'),
      [],
    );
  });

  it('a YAML syntax error: errors with severity, line and column, and no document', () => {
    const parsed = parseYamlDocument('name: Broken\nsteps: [\n  - id: a\n');
    assert.equal(parsed.document, undefined);
    assert.ok(parsed.errors.length > 0);
    assert.equal(parsed.errors[0].severity, 'error');
    assert.equal(typeof parsed.errors[0].line, 'number');
  });

  it('a definition the API would refuse: ok false, each error with its pointer, no value', () => {
    const parsed = parseYamlDocument(
      [
        'name: Dangling',
        'path: /t',
        'steps:',
        '  - { id: start, type: trigger, pluginType: manual }',
        '  - { id: greet, type: module, pluginType: log, dependsOn: [nowhere], config: { message: hi } }',
      ].join('\n'),
    );
    const validated = schemaValidate(normalizeWorkflowDocument(parsed.document));
    assert.equal(validated.ok, false);
    assert.equal(validated.value, undefined);
    assert.ok(
      validated.errors.some((error) => /nowhere/.test(error.message) && error.severity === 'error'),
      JSON.stringify(validated.errors),
    );
  });

  it('normalizeWorkflowDocument refuses what is not a parsed document, saying what to pass', () => {
    assert.throws(() => normalizeWorkflowDocument('name: x'), /parseYamlDocument\(text\)\.document/);
  });
});

describe('compat: runWorkflowE2E options of this round', () => {
  const trigger = { handler: () => ({ status: 'success' as const, outputs: {} }), registryType: 'trigger' as const };

  it('a failed execution rejects, as that harness does: WorkflowRunFailed names the step and the cause, the result rides along', async () => {
    const failure = await runWorkflowE2E({
      yamlPath: RELEASE_CHECK,
      inputs: { release_id: 'r-9' },
      stubs: {
        'np-checklist-trigger': trigger,
        'np-api-call': () => ({ outputs: { status: 200, body: { status: 'ready' } } }),
        'np-checklist-item-resolve': () => ({ status: 'failure', error: { message: 'checklist item is closed', retryable: false } }),
      },
    }).then(
      () => assert.fail('a failed execution rejects'),
      (error: WorkflowRunFailed) => error,
    );
    assert.ok(failure instanceof WorkflowRunFailed, String(failure));
    assert.match(failure.message, /step "resolve" failed: checklist item is closed/);
    const result = failure.result as WorkflowE2EResult;
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.stepId, 'resolve');
    assert.equal(result.variables.verdict, 'passed');
  });

  it('an executor it does not know is refused, naming the two it has', async () => {
    await assert.rejects(
      runWorkflowE2E({ yamlPath: RELEASE_CHECK, executor: 'kubernetes' as 'temporal', stubs: {} }),
      /executor is 'in-process' or 'temporal'/,
    );
  });

  it("a stub's outputPorts (that harness's spelling of ports.outputs) declare its ports; both spellings at once are refused", async () => {
    const result = await runWorkflowE2E({
      yamlPath: RELEASE_CHECK,
      executor: 'in-process',
      inputs: { release_id: 'r-1' },
      stubs: {
        'np-checklist-trigger': trigger,
        'np-api-call': {
          outputPorts: [{ name: 'default' }, { name: 'stale' }],
          handler: () => ({ status: 'success', outputs: { status: 200, body: { status: 'ready' } }, activePorts: ['default'] }),
        },
        'np-checklist-item-resolve': () => ({ status: 'success', outputs: { ok: true } }),
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    await assert.rejects(
      runWorkflowE2E({
        yamlPath: RELEASE_CHECK,
        stubs: {
          'np-api-call': { outputPorts: [{ name: 'stale' }], ports: { outputs: [{ name: 'stale' }] }, handler: () => ({ outputs: {} }) },
        },
      }),
      /ports, or outputPorts and inputPorts, not both/,
    );
  });
});
