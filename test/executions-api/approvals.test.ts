/**
 * Issue 42: waits that say who may answer and what. A signal-wait with `approvers`, `form`, `excludeStarter`
 * and `required`: the signal endpoint's approval gate (403 / 422 / 409, nothing recorded), approvals counted
 * once per user, a rejection that ends the wait at once, who answered in the outputs, the timeline and the audit
 * trail; the approvals inbox (GET /workflows/approvals); the `notify` call sent once.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { grantRole } from '../support/grants';
import { assertDialect } from '../support/dialects';
import { late } from '../support/late';
import { finished, orgContext, publish, useExecEnv, waitFor, type OrgContext } from './support';

const FORM = {
  type: 'object',
  required: ['approved'],
  properties: { approved: { type: 'boolean', title: 'Approve?' }, comment: { type: 'string', maxLength: 40 } },
};

/** start ──▶ approval (declared answer) ──▶ granted | refused (by the answer), outputs naming who answered. */
const approvalFlow = (key: string, answer: Record<string, unknown>) => ({
  name: 'Access request',
  key,
  inputs: { application_nrn: { type: 'string' }, user: { type: 'string' } },
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: {
      type: 'wait',
      pluginType: 'signal-wait',
      config: {
        signalName: 'decision',
        timeout: '1d',
        title: 'Grant access to ${{ workflow.inputs.user }}?',
        description: 'Requested for ${{ workflow.inputs.application_nrn }}',
        form: FORM,
        ...answer,
      },
    },
    decide: { type: 'decider', pluginType: 'conditional', config: { expression: 'steps.approval.outputs.payload.approved == true' } },
    granted: { type: 'module', pluginType: 'log', config: { message: 'granted' } },
    refused: { type: 'module', pluginType: 'log', config: { message: 'refused' } },
  },
  connections: [
    { from: 'start', to: 'approval' },
    { from: 'approval', to: 'decide' },
    { from: 'decide', sourcePort: 'true', to: 'granted' },
    { from: 'decide', sourcePort: 'false', to: 'refused' },
  ],
  outputs: { answers: '${{ steps.approval.outputs.answers }}', approved: '${{ steps.approval.outputs.payload.approved }}' },
});

const waiting = (body: Record<string, unknown>): boolean => body.status === 'waiting';

describe('executions API: declared answers on signal-wait (approvals)', function () {
  this.timeout(90_000);
  const { env, org } = useExecEnv({ org: 'each' });

  /** A person of the organization holding `role` on `nrn`, with a token. */
  const person = async (inOrg: OrgContext, role: string | null, nrn?: string) => {
    const { userId } = await grantRole(env.db, inOrg.id, role, nrn);
    const token = await env.t.token({ organizationId: inOrg.id, userId });
    return { userId, as: (req: import('supertest').Test) => req.set('Authorization', `Bearer ${token}`) };
  };
  type Person = Awaited<ReturnType<typeof person>>;

  const start = async (who: Person, key: string, inputs: Record<string, unknown>) => {
    const res = await who.as(env.t.request.post(`/workflows/definitions/${key}/execute`)).send({ inputs });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.executionId as string;
  };
  const answer = (who: Person, id: string, body: unknown) =>
    who.as(env.t.request.post(`/workflows/executions/${id}/signals/decision`)).send(body as object);
  const inbox = async (who: Person, query = '') => {
    const res = await who.as(env.t.request.get(`/workflows/approvals${query}`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { data: Array<Record<string, unknown>>; total: number; page: number; limit: number };
  };
  const signalAudits = async (id: string) =>
    env.db.query<Array<{ actorId: string; details: Record<string, unknown> }>>(
      `SELECT actor_id AS "actorId", details FROM audit_events WHERE action = 'execution.signal' AND target_id = $1 ORDER BY id`,
      [id],
    );
  /** Waits until the run's open wait is recorded (its row: what the gate reads). */
  const recorded = async (id: string) => {
    for (let i = 0; i < 200; i++) {
      const rows = await env.db.query<unknown[]>(`SELECT 1 FROM execution_waits WHERE execution_id = $1 AND answer IS NOT NULL`, [id]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('the declared-answer wait was never recorded');
  };

  it('refuses at publish a form that is not a JSON Schema and approvers of the wrong shape, with their paths', async () => {
    const pathsOf = async (answer: Record<string, unknown>) => {
      const res = await org.auth(env.t.request.post('/workflows/definitions')).send(approvalFlow('bad-answer', answer));
      assertDialect('problem', res, 400);
      return (res.body.errors as Array<{ path: string }>).map((e) => e.path).sort();
    };
    assert.deepEqual(await pathsOf({ form: { type: 'nope' } }), ['/steps/approval/config/form']);
    assert.deepEqual(await pathsOf({ approvers: { roles: ['Not A Slug'], groups: ['x'] }, required: 0, notify: { url: 'ftp://x' } }), [
      '/steps/approval/config/approvers/groups',
      '/steps/approval/config/approvers/roles',
      '/steps/approval/config/notify/url',
      '/steps/approval/config/required',
    ]);
    assert.deepEqual(await pathsOf({ approvers: {} }), ['/steps/approval/config/approvers']);
  });

  describe('four eyes, two approvals: the starter, a non-approver and a bad form are refused with nothing recorded; one user counts once', () => {
    // One run answered step by step (each test picks up where the one before left off), in an organization of its own.
    const runOrg = late<OrgContext>('the run’s organization');
    const org = runOrg.value;
    let starter: Person;
    let first: Person;
    let second: Person;
    let viewer: Person;
    let id: string;
    let listed: Record<string, unknown>;
    before(async () => {
      runOrg.set(await orgContext(env));
      await publish(env, org, approvalFlow('four-eyes', { approvers: { roles: ['developer'] }, excludeStarter: true, required: 2 }));
      starter = await person(org, 'developer');
      first = await person(org, 'developer');
      second = await person(org, 'developer');
      viewer = await person(org, 'viewer');
      id = await start(starter, 'four-eyes', { application_nrn: `organization=${org.id}`, user: 'ada' });
      await waitFor(env, org, id, waiting);
      await recorded(id);
    });

    it('the starter, a non-approver and a bad form are refused, with nothing recorded', async () => {
      const byStarter = await answer(starter, id, { approved: true });
      assertDialect('problem', byStarter, 403);
      assert.match(byStarter.body.type, /\/starter-may-not-answer$/);
      const byViewer = await answer(viewer, id, { approved: true });
      assertDialect('problem', byViewer, 403);
      assert.match(byViewer.body.type, /\/not-an-approver$/);
      const badForm = await answer(first, id, { approved: 'yes', comment: 'x'.repeat(41) });
      assertDialect('problem', badForm, 422);
      assert.deepEqual((badForm.body.errors as Array<{ path: string }>).map((e) => e.path).sort(), ['/body/approved', '/body/comment']);
      assert.deepEqual(await signalAudits(id), [], 'a refused answer records nothing');
    });

    it('the inbox: both approvers see the run; the starter (four eyes) and the viewer do not', async () => {
      assert.deepEqual(
        (await inbox(first)).data.map((w) => w.executionId),
        [id],
      );
      assert.deepEqual((await inbox(starter)).data, []);
      assert.deepEqual((await inbox(viewer)).data, []);
      listed = (await inbox(second)).data[0];
      assert.equal(listed.title, 'Grant access to ada?');
      assert.equal(listed.description, `Requested for organization=${org.id}`);
      assert.equal(listed.required, 2);
      assert.deepEqual(listed.form, FORM);
      assert.equal(listed.signalName, 'decision');
    });

    it('one user counts once: the first approval leaves the run waiting and the run leaves that approver’s inbox', async () => {
      const one = await answer(first, id, { approved: true, comment: 'ok' });
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.deepEqual(
        { released: one.body.released, approvals: one.body.approvals, required: one.body.required },
        {
          released: false,
          approvals: 1,
          required: 2,
        },
      );
      const again = await answer(first, id, { approved: true });
      assertDialect('problem', again, 409);
      assert.match(again.body.type, /\/already-answered$/);
      assert.equal((await org.auth(env.t.request.get(`/workflows/executions/${id}`))).body.status, 'waiting');
      // Answered: gone from the first approver's inbox (once the answer is recorded), still in the second's.
      for (let i = 0; i < 100 && (await inbox(first)).total > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await inbox(first)).total, 0);
      assert.deepEqual(
        (await inbox(second)).data.map((w) => (w.answers as Array<{ by: string }>).map((a) => a.by)),
        [[first.userId]],
      );
    });

    it('the second approval releases the run, which completes with both answers', async () => {
      const two = await answer(second, id, { approved: true });
      assert.equal(two.status, 200, JSON.stringify(two.body));
      assert.equal(two.body.released, true);
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'completed');
      const outputs = done.outputs as { answers: Array<{ by: string; approved: boolean; at: string }>; approved: boolean };
      assert.deepEqual(
        outputs.answers.map((a) => [a.by, a.approved]),
        [
          [first.userId, true],
          [second.userId, true],
        ],
      );
      assert.ok(outputs.answers.every((a) => !Number.isNaN(Date.parse(a.at))));
      const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
      assert.deepEqual(
        logs.body.data.map((l: { message: string }) => l.message),
        ['granted'],
      );
    });

    it('the timeline and the audit trail name who answered; the ended wait leaves the inbox', async () => {
      const events = await new ExecutionEventRepository(env.db.manager).after(id, 0, 500);
      const answered = events.filter((e) => e.type === 'wait.answered').map((e) => (e.data as { by: string }).by);
      assert.deepEqual(answered, [first.userId, second.userId]);
      const audits = await signalAudits(id);
      assert.deepEqual(
        audits.map((a) => [a.actorId, a.details.answer]),
        [first, second].map((p) => [p.userId, { waitId: listed.waitId, stepId: 'approval', by: p.userId, approved: true }]),
      );
      assert.deepEqual((await inbox(second)).data, [], 'an ended wait leaves the inbox');
    });
  });

  it('a rejection ends the wait at once (required: 2) and the run takes the reject path; an answer after that is 409', async () => {
    await publish(env, org, approvalFlow('reject', { approvers: { roles: ['developer'] }, excludeStarter: true, required: 2 }));
    const starter = await person(org, 'developer');
    const approver = await person(org, 'developer');
    const late = await person(org, 'developer');
    const id = await start(starter, 'reject', { application_nrn: `organization=${org.id}`, user: 'bob' });
    await waitFor(env, org, id, waiting);
    await recorded(id);
    const no = await answer(approver, id, { approved: false, comment: 'not this one' });
    assert.equal(no.status, 200, JSON.stringify(no.body));
    assert.deepEqual([no.body.released, no.body.approvals], [true, 0]);
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed');
    assert.equal((done.outputs as { approved: boolean }).approved, false);
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.deepEqual(
      logs.body.data.map((l: { message: string }) => l.message),
      ['refused'],
    );
    assertDialect('problem', await answer(late, id, { approved: true }), 409);
  });

  it('approvers by role on an NRN rendered from the run, or by user id; a sibling account sees nothing; a plain signal cannot answer by correlation', async () => {
    await publish(
      env,
      org,
      approvalFlow('by-app', {
        approvers: { roles: ['developer'], users: [], nrn: '${{ workflow.inputs.application_nrn }}' },
        required: 1,
      }),
    );
    const appA = `organization=${org.id}:account=101:namespace=11:application=1`;
    const appB = `organization=${org.id}:account=202:namespace=22:application=2`;
    const ownerA = await person(org, 'developer', `organization=${org.id}:account=101`);
    const sibling = await person(org, 'developer', `organization=${org.id}:account=202`);
    const nobody = await person(org, null);
    const runA = await start(await person(org, 'developer'), 'by-app', { application_nrn: appA, user: 'a' });
    const runB = await start(await person(org, 'developer'), 'by-app', { application_nrn: appB, user: 'b' });
    // Outside the workflow's NRN nobody matches by role: a run cannot widen who answers.
    const runOut = await start(await person(org, 'developer'), 'by-app', { application_nrn: 'organization=999999:account=1', user: 'c' });
    for (const id of [runA, runB, runOut]) {
      await waitFor(env, org, id, waiting);
      await recorded(id);
    }
    assert.deepEqual(
      (await inbox(ownerA)).data.map((w) => w.executionId),
      [runA],
    );
    assert.deepEqual(
      (await inbox(sibling)).data.map((w) => w.executionId),
      [runB],
    );
    assert.deepEqual((await inbox(nobody)).data, []);
    assert.equal((await inbox(ownerA, '?workflowId=by-app')).total, 1);
    assert.equal((await inbox(ownerA, '?workflowId=other')).total, 0);
    assert.equal((await inbox(ownerA, `?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).total, 0);
    // An admin of the organization holds no `developer` grant: not an approver of these waits.
    assert.deepEqual((await inbox({ userId: org.userId, as: org.auth })).data, []);

    assert.match((await answer(sibling, runA, { approved: true })).body.type, /\/not-an-approver$/);
    assert.match((await answer(ownerA, runOut, { approved: true })).body.type, /\/not-an-approver$/);
    assertDialect('problem', await answer(nobody, runA, { approved: true }), 404);
    // A declared-answer wait is never released by name alone (correlation, plain signals): 409.
    const correlated = await org
      .auth(env.t.request.post('/workflows/signals/decision'))
      .send({ correlationKey: 'k', payload: { approved: true } });
    assertDialect('problem', correlated, 409);

    assert.equal((await answer(ownerA, runA, { approved: true })).status, 200);
    assert.equal((await waitFor(env, org, runA, finished)).status, 'completed');
    for (const id of [runB, runOut]) await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({});
  });

  describe('notify', () => {
    let server: Server;
    const received: Array<{ body: Record<string, unknown>; headers: IncomingMessage['headers'] }> = [];
    let fail = 1;
    before(async () => {
      server = createServer((req, res) => {
        let text = '';
        req.on('data', (chunk: Buffer) => (text += chunk.toString()));
        req.on('end', () => {
          // The first call fails: the retry sends it, and it is received once.
          if (fail > 0) {
            fail -= 1;
            res.writeHead(503).end();
            return;
          }
          received.push({ body: JSON.parse(text) as Record<string, unknown>, headers: req.headers });
          res.writeHead(200).end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('posts once when the run starts waiting, with a link to the answer page, through the egress rules', async () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      await publish(
        env,
        org,
        approvalFlow('notified', { approvers: { users: [org.userId] }, notify: { url, headers: { 'x-team': 'platform' } } }),
      );
      const admin = { userId: org.userId, as: org.auth };
      const id = await start(admin, 'notified', { application_nrn: `organization=${org.id}`, user: 'n' });
      await waitFor(env, org, id, waiting);
      for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(received.length, 1);
      const [{ body, headers }] = received;
      assert.equal(headers['x-team'], 'platform');
      assert.equal(body.executionId, id);
      assert.equal(body.title, 'Grant access to n?');
      // The wait's id is the run's id and the wait's number in it (engine rule wait-ids-by-sequence).
      assert.match(String(body.link), new RegExp(`/console/approvals/${id}/[0-9a-f-]+\\.1$`));
      const answerUrl = String((await inbox(admin)).data[0].answerUrl);
      assert.ok(answerUrl.endsWith(new URL(String(body.link), 'http://x').pathname), `${answerUrl} vs ${String(body.link)}`);
      assert.equal((await answer(admin, id, { approved: true })).status, 200);
      await waitFor(env, org, id, finished);
      assert.equal(received.length, 1, 'sent once');
      const notices = await env.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM wait_notices WHERE execution_id = $1`, [id]);
      assert.equal(notices[0].n, 1);
    });
  });
});
