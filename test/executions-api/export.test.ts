/**
 * GET /workflows/executions/{id}/export: one JSON document of a real run
 * (an http-request to a local server with a secret in a header, a pure
 * set-variable step, a log step), whose parts equal what the execution, steps
 * and logs endpoints answer, without the secret; and its round trip into the
 * kit: `platform-workflow run --from-export` and `replayExport` replay it to
 * the recorded outcome, and name the step where a tampered recording or a
 * changed definition parts from it.
 *
 *   start ─▶ call (http-request, Authorization: secret) ─▶ shape (set-variable) ─▶ note (log)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportDocument } from '../../api/executions/export-document';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { replayExport, type ExecutionExport } from '../../kit';
import { runScript, type ScriptResult } from '../support/process';
import { TEMPORAL_UI, execute, finished, publish, useExecEnv, waitFor } from './support';

const CLI = 'kit/cli/main.ts';

function cli(args: string[]): Promise<ScriptResult> {
  return runScript(CLI, { args, env: { NO_COLOR: '1', PLATFORM_API_URL: '', PLATFORM_API_TOKEN: '' }, timeoutMs: 60_000 });
}

describe('executions API: export, and its replay in the kit', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();
  const dir = mkdtempSync(path.join(tmpdir(), 'export-'));
  const canary = `canary-${randomBytes(16).toString('hex')}`;
  let server: Server;
  let baseUrl: string;
  let key: string;
  /** The export of a completed run and of a failed one, as the API sent them. */
  let completedText: string;
  let failedText: string;

  before(async () => {
    // Greets by name and echoes the Authorization header (the worst case: the secret comes back); "fail" is refused.
    server = createServer((req, res) => {
      const name = decodeURIComponent(req.url?.split('/').pop() ?? '');
      res.setHeader('content-type', 'application/json');
      if (name === 'fail') res.statusCode = 400;
      res.end(JSON.stringify({ greeting: name === 'fail' ? 'no' : 'hello', seen: req.headers.authorization ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const secret = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'EXPORT_TOKEN', value: canary, secret: true, path: '/' });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));
    key = `export-${randomBytes(4).toString('hex')}`;
    await publish(env, org, definition(key, baseUrl));
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function exportOf(id: string) {
    const res = await org.auth(env.t.request.get(`/workflows/executions/${id}/export`));
    assert.equal(res.status, 200, res.text);
    return res;
  }

  // A completed run's export, read part by part (each test picks up where the one before left off).
  let completedId: string;
  let completed: ExecutionExport;

  it('exports a completed run: a JSON attachment named after the run, without the secret', async () => {
    completedId = await execute(env, org, key, { inputs: { name: 'Ada' } });
    await waitFor(env, org, completedId, finished);
    const res = await exportOf(completedId);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['content-disposition'], `attachment; filename="${completedId}.json"`);
    completedText = res.text;
    assert.ok(!completedText.includes(canary), 'the secret value is not in the export');
    completed = JSON.parse(completedText) as ExecutionExport;
  });

  it('exports a completed run: its format, version and time, the execution and its workflow as the API reads them', async () => {
    assert.equal(completed.format, 'platform-execution-export');
    assert.equal(completed.version, 1);
    assert.ok(!Number.isNaN(Date.parse(completed.exportedAt)));
    const execution = await org.auth(env.t.request.get(`/workflows/executions/${completedId}`));
    assert.deepEqual(completed.execution, execution.body);
    assert.equal(completed.execution.status, 'completed');
    assert.deepEqual(completed.execution.outputs, { greeting: 'hello, Ada' });
    assert.deepEqual(completed.inputs, { name: 'Ada' });
    assert.equal(completed.trigger.source, 'manual');
    assert.equal(completed.workflow.id, execution.body.workflowId);
    assert.equal(completed.workflow.key, key);
    assert.equal(completed.workflow.name, 'Export me');
    assert.equal(completed.workflow.revision, 1);
    assert.equal(completed.workflow.alias, 'latest');
    assert.ok(completed.workflow.nrn);
  });

  it('exports a completed run: the definition of the revision it ran', async () => {
    const revision = await org.auth(env.t.request.get(`/workflows/definitions/${key}/revisions/1`));
    assert.equal(revision.status, 200, JSON.stringify(revision.body));
    assert.deepEqual(completed.definition, revision.body.definition);
    assert.deepEqual(Object.keys((completed.definition as { steps: object }).steps).sort(), ['call', 'note', 'shape', 'start']);
  });

  it('exports a completed run: every step (the echoed secret redacted), every log line, no children', async () => {
    const steps = await org.auth(env.t.request.get(`/workflows/executions/${completedId}/steps?limit=100`));
    assert.deepEqual(completed.steps, steps.body.data);
    assert.deepEqual(completed.steps.map((step) => step.stepId).sort(), ['call', 'note', 'shape', 'start']);
    // The echoed secret came back redacted.
    assert.equal((completed.steps.find((step) => step.stepId === 'call')!.outputs.body as { seen: string }).seen, 'Bearer <redacted>');
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${completedId}/logs?limit=1000`));
    assert.deepEqual(completed.logs, logs.body.data);
    assert.ok(completed.logs.some((log) => log.message === 'said hello, Ada'));
    assert.deepEqual(completed.children, []);
  });

  it('exports a completed run: every event in order, ending with execution.completed', () => {
    assert.deepEqual(
      completed.events.map((event) => event.id),
      completed.events.map((_, index) => index),
    );
    assert.equal(completed.events.at(-1)?.type, 'execution.completed');
    assert.ok(completed.events.every((event) => event.data.executionId === completedId));
  });

  it('exports a completed run: read one row per query, the document is the same (the batches join without a gap or a repeat)', async () => {
    const row = (await new ExecutionRepository(env.db.manager).findInOrganization(org.id, completedId))!;
    const sources = {
      row,
      workflow: await new WorkflowRepository(env.db.manager).findOneBy({ id: row.workflowId }),
      revision: await new WorkflowRevisionRepository(env.db.manager).findRevision(row.workflowId, row.revision),
    };
    let text = '';
    for await (const chunk of exportDocument({ dataSource: env.db, temporalUiUrl: TEMPORAL_UI }, sources, 1)) text += chunk;
    assert.deepEqual({ ...JSON.parse(text), exportedAt: completed.exportedAt }, completed);
  });

  it('exports a failed run with its error, and answers 404 for another organization or an unknown id', async () => {
    const id = await execute(env, org, key, { inputs: { name: 'fail' } });
    await waitFor(env, org, id, finished);
    const res = await exportOf(id);
    failedText = res.text;
    const doc = JSON.parse(failedText) as ExecutionExport;
    assert.equal(doc.execution.status, 'failed');
    assert.equal(doc.execution.error?.stepId, 'call');
    assert.equal(doc.steps.find((step) => step.stepId === 'call')?.status, 'failed');
    assert.equal(doc.events.at(-1)?.type, 'execution.failed');
    assert.ok(!failedText.includes(canary));

    const foreign = await org.otherAuth(env.t.request.get(`/workflows/executions/${id}/export`));
    assert.equal(foreign.status, 404);
    assert.match(String(foreign.headers['content-type']), /application\/problem\+json/);
    const unknown = await org.auth(env.t.request.get('/workflows/executions/exec_does_not_exist/export'));
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.headers['content-type']), /application\/problem\+json/);
  });

  it('exports a waiting run (its status says so) with the ids of its children; its replay stops at the unfinished step', async () => {
    const childKey = `${key}-child`;
    await publish(env, org, {
      name: 'Export child',
      key: childKey,
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        done: { type: 'module', pluginType: 'set-variable', config: { path: 'done', value: true } },
      },
      connections: [{ from: 'start', to: 'done' }],
    });
    const parentKey = `${key}-parent`;
    await publish(env, org, {
      name: 'Export parent',
      key: parentKey,
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        child: { type: 'module', pluginType: 'sub-workflow', config: { workflowId: childKey } },
        hold: { type: 'wait', config: { signalName: 'go', timeout: '1h' } },
      },
      connections: [
        { from: 'start', to: 'child' },
        { from: 'child', to: 'hold' },
      ],
    });
    const id = await execute(env, org, parentKey, {});
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const doc = JSON.parse((await exportOf(id)).text) as ExecutionExport;
    assert.equal(doc.execution.status, 'waiting');
    const children = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${childKey}`));
    assert.equal(children.body.data.length, 1);
    assert.deepEqual(doc.children, [children.body.data[0].id]);
    assert.equal(children.body.data[0].parentExecutionId, id);

    // The child step answers from the recording (no child runs locally); the wait was not over when exported.
    const replay = await replayExport(doc);
    assert.equal(replay.matches, false);
    assert.equal(replay.run.steps.child.status, 'completed');
    assert.equal(replay.run.steps.hold.error?.code, 'REPLAY_NOT_RECORDED');
    assert.equal(replay.divergences[0].stepId, 'hold');
    await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/go`)).send({});
    await waitFor(env, org, id, finished);
  });

  it('round trip: run --from-export matches the recorded run, completed or failed (and so does replayExport)', async () => {
    const completed = path.join(dir, 'completed.json');
    const failed = path.join(dir, 'failed.json');
    writeFileSync(completed, completedText);
    writeFileSync(failed, failedText);

    const ok = await cli(['run', '--from-export', completed]);
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.match(ok.stdout, /matches the recorded run exec_\S+ \(completed\)/);
    assert.match(ok.stdout, /completed outputs: \{"greeting":"hello, Ada"\}/);

    const again = await cli(['run', '--from-export', failed]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stdout, /matches the recorded run exec_\S+ \(failed\)/);

    const replay = await replayExport(completed);
    assert.equal(replay.matches, true, JSON.stringify(replay.divergences));
    assert.equal(replay.run.status, 'completed');
    assert.deepEqual(replay.run.outputs, { greeting: 'hello, Ada' });
    const failure = await replayExport(failedText);
    assert.equal(failure.matches, true, JSON.stringify(failure.divergences));
    assert.equal(failure.run.status, 'failed');
    assert.equal(failure.run.error?.stepId, 'call');
  });

  it('diverges, naming the step, when the recording is tampered with or the definition changed', async () => {
    const doc = JSON.parse(completedText) as ExecutionExport;
    // The server "said" something else: the pure step computed from it parts first.
    const tampered = structuredClone(doc);
    const call = tampered.steps.find((step) => step.stepId === 'call')!;
    (call.items[0].body as { greeting: string }).greeting = 'howdy';
    call.outputs = call.items[0];
    const tamperedFile = path.join(dir, 'tampered.json');
    writeFileSync(tamperedFile, JSON.stringify(tampered));
    const run = await cli(['run', '--from-export', tamperedFile]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /DIVERGES from the recorded run/);
    assert.match(run.stderr, /first divergence: step "shape": output differs/);
    assert.match(run.stderr, /execution outputs differ: recorded \{"greeting":"hello, Ada"\}, local \{"greeting":"howdy, Ada"\}/);

    // The definition changed: the set step writes something else.
    const changed = structuredClone(doc);
    const steps = (changed.definition as { steps: Record<string, { config: Record<string, unknown> }> }).steps;
    steps.shape.config.value = '${{ steps.call.outputs.body.greeting }} there';
    const replay = await replayExport(changed);
    assert.equal(replay.matches, false);
    assert.equal(replay.divergences[0].stepId, 'shape');
    assert.equal(replay.divergences[0].kind, 'step-output');

    // A changed file run against the recording (--stub-from-export): differences shown, exit code the run's.
    const file = path.join(dir, 'changed.json');
    writeFileSync(file, JSON.stringify(changed.definition));
    const stubbed = await cli(['run', file, '--stub-from-export', path.join(dir, 'completed.json')]);
    assert.equal(stubbed.code, 0, stubbed.stderr + stubbed.stdout);
    assert.match(stubbed.stdout, /completed outputs: \{"greeting":"hello there"\}/);
    assert.match(stubbed.stdout, /differs from the recorded run[\s\S]*first divergence: step "shape"/);
  });
});

function definition(key: string, baseUrl: string): Record<string, unknown> {
  return {
    name: 'Export me',
    key,
    steps: {
      start: { type: 'trigger', pluginType: 'manual' },
      call: {
        type: 'module',
        pluginType: 'http-request',
        config: { url: `${baseUrl}/greet/\${{ workflow.inputs.name }}`, headers: { Authorization: 'Bearer ${{ secrets.EXPORT_TOKEN }}' } },
      },
      shape: {
        type: 'module',
        pluginType: 'set-variable',
        config: { path: 'greeting', value: '${{ steps.call.outputs.body.greeting }}, ${{ workflow.inputs.name }}' },
      },
      note: { type: 'module', pluginType: 'log', config: { message: 'said ${{ variables.greeting }}' } },
    },
    connections: [
      { from: 'start', to: 'call' },
      { from: 'call', to: 'shape' },
      { from: 'shape', to: 'note' },
    ],
    outputs: { greeting: '${{ variables.greeting }}' },
  };
}
