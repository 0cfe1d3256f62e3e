/**
 * replayExport without a server: a recording made by a kit run (turned into an export
 * document) replays with its effectful steps and its signal wait answered from the
 * recording (no network, no signals option), and a call the recording lacks diverges
 * at that step. The command line refuses option mixes it cannot honour.
 *
 *   start ─▶ fetch (http-request to a closed port) ─▶ approval (wait "approve", 1h) ─▶ total (set-variable)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExportInvalid, readExport, replayExport, runWorkflow, type ExecutionExport, type RunResult } from '../../kit';
import { runScript } from '../support/process';

const DEFINITION = {
  name: 'Replay me',
  path: '/kit-replay',
  steps: [
    { id: 'start', type: 'trigger', pluginType: 'manual' },
    { id: 'fetch', type: 'module', pluginType: 'http-request', dependsOn: ['start'], config: { url: 'http://127.0.0.1:9/amount' } },
    { id: 'approval', type: 'wait', dependsOn: ['fetch'], config: { signalName: 'approve', timeout: '1h' } },
    {
      id: 'total',
      type: 'module',
      pluginType: 'set-variable',
      dependsOn: ['approval'],
      config: { path: 'total', value: '${{ steps.fetch.outputs.body.amount * workflow.inputs.times }}' },
    },
  ],
  outputs: { approvedBy: '${{ steps.approval.outputs.payload.by }}', total: '${{ variables.total }}' },
};

/** What the export endpoint would have written for this run (the parts a replay reads). */
function exportOf(result: RunResult, inputs: Record<string, unknown>): ExecutionExport {
  return {
    format: 'platform-execution-export',
    version: 1,
    exportedAt: new Date().toISOString(),
    execution: { id: result.executionId, status: result.status, inputs, outputs: result.outputs },
    workflow: { id: 'wf_local', revision: 1 },
    definition: DEFINITION,
    inputs,
    trigger: { stepId: 'start', source: 'manual', payload: inputs, receivedAt: new Date().toISOString() },
    steps: Object.entries(result.steps).map(([stepId, step]) => ({
      stepId,
      status: step.status,
      run: step.runs,
      items: step.items,
      outputs: step.outputs,
      activePorts: step.activePorts,
      ...(step.error ? { error: step.error } : {}),
    })),
    children: [],
    logs: [],
    events: [],
  };
}

describe('kit: replaying an export', function () {
  this.timeout(60_000);
  let recorded: ExecutionExport;

  before(async () => {
    const inputs = { times: 3 };
    const result = await runWorkflow({
      definition: DEFINITION,
      inputs,
      stubs: { 'http-request': () => ({ statusCode: 200, body: { amount: 5 } }) },
      signals: () => ({ name: 'approve', payload: { by: 'ann' } }),
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { approvedBy: 'ann', total: 15 });
    recorded = exportOf(result, inputs);
  });

  it('answers the http call and the signal wait from the recording, and matches', async () => {
    const replay = await replayExport(recorded);
    assert.deepEqual(replay.divergences, []);
    assert.equal(replay.matches, true);
    assert.deepEqual(replay.run.outputs, { approvedBy: 'ann', total: 15 });
    assert.equal(replay.recorded.status, 'completed');
  });

  it('a call the recording lacks fails with REPLAY_NOT_RECORDED, the first divergence at that step', async () => {
    const missing = structuredClone(recorded);
    missing.steps = missing.steps.filter((step) => step.stepId !== 'approval');
    const replay = await replayExport(missing);
    assert.equal(replay.matches, false);
    assert.equal(replay.run.steps.approval.error?.code, 'REPLAY_NOT_RECORDED');
    assert.equal(replay.divergences[0].kind, 'step-extra');
    assert.equal(replay.divergences[0].stepId, 'approval');
    assert.equal(replay.divergences.at(-1)?.kind, 'execution-status');
  });

  it('other recorded inputs change the pure steps: the divergence names the step', async () => {
    const other = structuredClone(recorded);
    other.inputs = { times: 4 };
    const replay = await replayExport(other);
    assert.equal(replay.divergences[0].stepId, 'total');
    assert.match(
      replay.divergences[0].message,
      /step "total": output differs: recorded \{"path":"total","value":15\}, local \{"path":"total","value":20\}/,
    );
  });

  it('refuses what is not an export', () => {
    assert.throws(() => readExport({ format: 'something-else' }), ExportInvalid);
    assert.throws(() => readExport({ ...recorded, version: 2 }), /export version 2/);
    assert.throws(() => readExport('{"format":'), /not JSON/);
  });

  it('the command line refuses --from-export with a file, --stub-from-export without one, and a file that is no export (exit 2)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-replay-'));
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify(recorded));
    writeFileSync(path.join(dir, 'flow.json'), JSON.stringify(DEFINITION));
    const cli = (args: string[]) => runScript('kit/cli/main.ts', { args, env: { NO_COLOR: '1' }, timeoutMs: 60_000 });
    const both = await cli(['run', path.join(dir, 'flow.json'), '--from-export', file]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--stub-from-export/);
    const none = await cli(['run', '--stub-from-export', file]);
    assert.equal(none.code, 2);
    const notExport = await cli(['run', '--from-export', path.join(dir, 'flow.json')]);
    assert.equal(notExport.code, 2);
    assert.match(notExport.stderr, /not an execution export/);
    const ok = await cli(['run', '--from-export', file]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /matches the recorded run exec_local_\S+ \(completed\)/);
  });
});
