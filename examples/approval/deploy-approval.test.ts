/**
 * Testing an approval with the kit: the `signals` option answers the wait
 * (or lets it time out: a day passes instantly), the chat call is stubbed,
 * and `acme-deploy`, a vendor plugin this server does not have, is stubbed
 * so the workflow can be tested before the plugin exists.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
// In your own repository: import { runWorkflow } from 'platform-api/kit';
import { runWorkflow, validateDefinition, loadDefinition, type Stubs } from '../../kit';

const file = path.join(__dirname, 'deploy-approval.yaml');

function stubs(deploys: unknown[]): Stubs {
  return {
    'http-request': () => ({ statusCode: 200 }),
    'acme-deploy': ({ config }) => {
      deploys.push(config);
      return { version: '1.2.3' };
    },
  };
}

const run = (signals: Parameters<typeof runWorkflow>[0]['signals'], deploys: unknown[] = []) =>
  runWorkflow({
    file,
    inputs: { service: 'payments' },
    vars: { CHAT_WEBHOOK: 'https://chat.example/hook' },
    stubs: stubs(deploys),
    signals,
  });

describe('example: deploy approval', () => {
  it('needs the vendor plugin: valid once a stub registers acme-deploy', () => {
    const { definition } = loadDefinition(file, { plugins: stubs([]) });
    assert.ok(validateDefinition(definition).errors.some((error) => /Unknown plugin type: acme-deploy/.test(error.message)));
    assert.equal(validateDefinition(definition, { plugins: stubs([]) }).ok, true);
  });

  it('deploys when approved, with the approver', async () => {
    const deploys: unknown[] = [];
    const result = await run(({ name }) => (name === 'approve' ? { payload: { approved: true, by: 'ann' } } : undefined), deploys);
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(deploys, [{ service: 'payments', approvedBy: 'ann' }]);
    assert.deepEqual(result.outputs, { outcome: 'deployed' });
    assert.equal(result.steps.refused.status, 'skipped');
  });

  it('records a refusal', async () => {
    const deploys: unknown[] = [];
    const result = await run(() => ({ payload: { approved: false, by: 'bob' } }), deploys);
    assert.deepEqual(result.outputs, { outcome: 'refused' });
    assert.deepEqual(deploys, []);
  });

  it('expires after a day without an answer (instantly)', async () => {
    const started = Date.now();
    const result = await run(() => 'timeout');
    assert.deepEqual(result.outputs, { outcome: 'expired' });
    assert.deepEqual(result.steps.wait_for_approval.activePorts, ['timeout']);
    assert.ok(Date.now() - started < 5000);
  });
});
