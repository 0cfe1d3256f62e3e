/**
 * The example a newcomer runs first, on the real stack: the shipped file
 * examples/access-request/access-request.yaml, read as is and published as
 * YAML (as the README's curl does), runs with nothing configured and no
 * plugin beyond the built-ins, on both branches: granted by the policy at
 * once, and granted by a person's `approve` signal (an answer the wait declares: its approvers and form).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertDialect } from '../support/dialects';
import { grantRole } from '../support/grants';
import { execute, finished, useExecEnv, waitFor } from './support';

const EXAMPLE = path.join(__dirname, '../../examples/access-request/access-request.yaml');
const DAY_MS = 24 * 60 * 60 * 1000;

describe('examples/access-request on the server', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  const request = (role: string, days: number) => ({ inputs: { requester: 'cy@example.com', resource: 'payments-db', role, days } });
  /** The access ends the days asked for after the run started, which was between `from` and `to`. */
  const assertExpiry = (expiresAt: string, days: number, from: number, to: number) => {
    const startedAt = Date.parse(expiresAt) - days * DAY_MS;
    assert.ok(startedAt >= from && startedAt <= to, `${expiresAt} is not ${days} day(s) after the run started`);
  };

  before(async () => {
    const res = await org
      .auth(env.t.request.put('/workflows/definitions/access-request'))
      .set('Content-Type', 'application/yaml')
      .send(readFileSync(EXAMPLE, 'utf8'));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.warnings, []);
  });

  it('grants low-risk access at once, without waiting, until the days asked for have passed', async () => {
    const before = Date.now();
    const id = await execute(env, org, 'access-request', request('read', 3));
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const { expiresAt, ...decision } = done.outputs as { expiresAt: string };
    assert.deepEqual(decision, { decision: 'approved', risk: 'low', decidedBy: 'policy' });
    assertExpiry(expiresAt, 3, before, Date.now());
    const wait = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/wait_for_approval`)).expect(200);
    assert.equal(wait.body.record.status, 'skipped');
  });

  it('waits for a person on higher risk, and grants when the approve signal says so', async () => {
    const before = Date.now();
    const id = await execute(env, org, 'access-request', request('admin', 1));
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const pending = await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`)).expect(200);
    assert.deepEqual(
      pending.body.data.map((wait: { stepId: string; signalNames: string[] }) => [wait.stepId, wait.signalNames]),
      [['wait_for_approval', ['approve']]],
    );
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.match(logs.body.data[0].message, /cy@example\.com asks for admin on payments-db for 1 day\(s\) \(high risk\)/);
    // The wait declares its answer: the inbox lists it with its rendered title, a viewer may not answer, the form checks.
    const inbox = await org.auth(env.t.request.get('/workflows/approvals')).expect(200);
    const listed = (inbox.body.data as Array<{ executionId: string; title: string; description: string }>).find(
      (w) => w.executionId === id,
    );
    assert.deepEqual([listed?.title, listed?.description], ['Grant admin on payments-db to cy@example.com?', 'For 1 day(s); high risk.']);
    const { userId: viewer } = await grantRole(env.db, org.id, 'viewer');
    const viewerToken = await env.t.token({ organizationId: org.id, userId: viewer });
    const refused = await env.t.request
      .post(`/workflows/executions/${id}/signals/approve`)
      .set('Authorization', `Bearer ${viewerToken}`)
      .send({ approved: true, by: 'val' });
    assertDialect('problem', refused, 403);
    assertDialect(
      'problem',
      await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ approved: true }),
      422,
    );

    await org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`))
      .send({ approved: true, by: 'ann' })
      .expect(200);
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const { expiresAt, ...decision } = done.outputs as { expiresAt: string };
    assert.deepEqual(decision, { decision: 'approved', risk: 'high', decidedBy: 'ann' });
    assertExpiry(expiresAt, 1, before, Date.now());
  });

  it('records a refusal', async () => {
    const id = await execute(env, org, 'access-request', request('write', 3));
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    await org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`))
      .send({ approved: false, by: 'bob' })
      .expect(200);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { decision: 'refused', risk: 'medium', decidedBy: 'bob', expiresAt: null });
  });

  it('refuses a role the request does not know, before anything runs', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions/access-request/execute')).send(request('root', 3));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.type, /inputs-invalid$/);
    assert.ok(
      res.body.errors.some((error: { path: string }) => error.path === '/inputs/role'),
      JSON.stringify(res.body),
    );
  });
});
