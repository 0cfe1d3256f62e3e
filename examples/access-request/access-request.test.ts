/**
 * Testing the access request with the kit: nothing is stubbed (code-exec runs
 * in its real sandbox, the rest inside the engine); the `signals` option
 * plays the person who approves, refuses, or never answers (three days pass
 * instantly). test/executions-api/access-request-example.test.ts runs the
 * same file on the server.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
// In your own repository: import { runWorkflow } from 'platform-api/kit';
import { loadDefinition, runWorkflow, type SignalResponder } from '../../kit';

const file = path.join(__dirname, 'access-request.yaml');
const DAY_MS = 24 * 60 * 60 * 1000;

const request = (role: string, days: number) => ({ requester: 'cy@example.com', resource: 'payments-db', role, days });

/** A person who answers the `approve` wait with this payload, and the waits they were asked. */
function approver(payload: Record<string, unknown> | 'timeout') {
  const asked: string[] = [];
  const titles: Array<string | undefined> = [];
  const signals: SignalResponder = ({ signalNames, answer }) => {
    asked.push(...signalNames);
    titles.push(answer?.title);
    return payload === 'timeout' ? 'timeout' : { payload };
  };
  return { asked, titles, signals };
}

describe('example: access request', () => {
  it('is a valid definition, with no plugin to stub and no config to give', () => {
    const loaded = loadDefinition(file);
    assert.deepEqual(loaded.errors, []);
    assert.deepEqual(loaded.warnings, []);
  });

  it('grants low-risk access at once: no one is asked, the access expires after the days asked for', async () => {
    const person = approver({ approved: false, by: 'nobody' });
    const result = await runWorkflow({ file, inputs: request('read', 3), signals: person.signals, throwOnFailure: true });
    assert.deepEqual(person.asked, []);
    const { expiresAt, ...decision } = result.outputs as { expiresAt: string };
    assert.deepEqual(decision, { decision: 'approved', risk: 'low', decidedBy: 'policy' });
    const requestedAt = (result.steps.assess.inputs as { requestedAt: string }).requestedAt;
    assert.equal(Date.parse(expiresAt) - Date.parse(requestedAt), 3 * DAY_MS);
  });

  it('rates write access, admin access and long access above low', async () => {
    const risks: Record<string, unknown> = {};
    for (const [role, days] of [
      ['write', 3],
      ['read', 14],
      ['admin', 1],
      ['read', 60],
    ] as const) {
      const result = await runWorkflow({ file, inputs: request(role, days), signals: () => 'timeout', throwOnFailure: true });
      risks[`${role} ${days}`] = result.outputs.risk;
    }
    assert.deepEqual(risks, { 'write 3': 'medium', 'read 14': 'medium', 'admin 1': 'high', 'read 60': 'high' });
  });

  it('asks a person otherwise, and grants when they approve', async () => {
    const person = approver({ approved: true, by: 'ann' });
    const result = await runWorkflow({ file, inputs: request('admin', 1), signals: person.signals, throwOnFailure: true });
    assert.deepEqual(person.asked, ['approve']);
    // The wait declares its answer: the question as rendered, and who answered (the server names the user; here `kit`).
    assert.equal(person.titles[0], 'Grant admin on payments-db to cy@example.com?');
    const answers = (result.steps.wait_for_approval.outputs as { answers: Array<{ by: string; approved: boolean }> }).answers;
    assert.deepEqual(
      answers.map((a) => [a.by, a.approved]),
      [['kit', true]],
    );
    assert.match(result.logs[0].message, /^cy@example\.com asks for admin on payments-db for 1 day\(s\) \(high risk\)/);
    const { expiresAt, ...decision } = result.outputs as { expiresAt: string };
    assert.deepEqual(decision, { decision: 'approved', risk: 'high', decidedBy: 'ann' });
    assert.ok(Date.parse(expiresAt) > 0, expiresAt);
  });

  it('records a refusal, and who refused', async () => {
    const result = await runWorkflow({ file, inputs: request('write', 3), signals: approver({ approved: false, by: 'bob' }).signals });
    assert.deepEqual(result.outputs, { decision: 'refused', risk: 'medium', decidedBy: 'bob', expiresAt: null });
    assert.equal(result.steps.grant.status, 'skipped');
  });

  it('expires after three days without an answer', async () => {
    const result = await runWorkflow({ file, inputs: request('write', 3), signals: approver('timeout').signals });
    assert.deepEqual(result.outputs, { decision: 'expired', risk: 'medium', decidedBy: null, expiresAt: null });
    assert.deepEqual(result.steps.wait_for_approval.activePorts, ['timeout']);
  });

  it('refuses a request without its inputs before anything runs', async () => {
    await assert.rejects(runWorkflow({ file, inputs: { requester: 'cy@example.com' } }), { name: 'InputsInvalid' });
  });
});
