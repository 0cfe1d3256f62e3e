/**
 * What the audit trail holds and who reads it: a refused write records
 * nothing, an event rolls back with the change it describes, no secret value
 * (nor a variable's value, nor a signal payload) is ever recorded, definitions
 * carry a diff; GET /audit/events needs audit:read (a viewer gets 403), filters
 * and pages with an opaque cursor within the caller's organization; retention
 * deletes old events in bounded batches.
 */
import assert from 'node:assert/strict';
import { AuditEventRepository } from '../../db/repositories/audit-event-repository';
import { assertDialect } from '../support/dialects';
import { newOrganizationId } from '../support/database';
import { grantAdmin, grantRole } from '../support/grants';
import { eventsOfRequest, executionWhere, newRequestId, useAuditEnv } from './support';

const CANARY = 'canary-f00d';

describe('audit trail: what is recorded and how it is read', function () {
  this.timeout(120_000);
  const { env, org } = useAuditEnv();
  const events = (query = '', as = org.as) => as(env.t.request.get(`/audit/events${query}`));

  it('records nothing for a refused write', async () => {
    for (const req of [
      env.t.request.post('/workflows/definitions').send({ name: 'x', steps: { a: { type: 'nope' } } }),
      env.t.request.post('/account').send({ organization_id: Number(org.id) }),
      env.t.request.post('/workflows/config').send({ name: 'bad name', value: 'v', path: '/' }),
    ]) {
      const requestId = newRequestId();
      const res = await org.as(req.set('X-Request-Id', requestId));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(await eventsOfRequest(env.db, requestId), []);
    }
  });

  it('rolls the event back with a change that fails after it was recorded', async () => {
    const published = await org.as(env.t.request.post('/workflows/definitions')).send({
      name: 'Refused activation',
      steps: { hook: { type: 'trigger', pluginType: 'webhook', config: { mode: 'start' } } },
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const id = published.body.workflow.id as string;
    assert.match(id, /^wf_[0-9a-z]+$/);
    // Activation records its event, then marks the alias active: the database refuses that last statement.
    await env.db.query(
      `CREATE OR REPLACE FUNCTION audit_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql`,
    );
    const trigger = `audit_test_refuse_${id}`;
    await env.db.query(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON workflow_aliases FOR EACH ROW WHEN (NEW.workflow_id = '${id}') EXECUTE FUNCTION audit_test_refuse()`,
    );
    try {
      const requestId = newRequestId();
      const res = await org.as(env.t.request.post(`/workflows/definitions/${id}/aliases/latest/activate`).set('X-Request-Id', requestId));
      assert.equal(res.status, 500);
      assert.deepEqual(await eventsOfRequest(env.db, requestId), [], 'the event went with the change');
    } finally {
      await env.db.query(`DROP TRIGGER ${trigger} ON workflow_aliases`);
    }
    const alias = await org.as(env.t.request.get(`/workflows/definitions/${id}/aliases/latest`));
    assert.equal(alias.body.active, false);

    // And the other way round: when the event cannot be written, the change is not made.
    const unrecordable = `audit_test_unrecordable_${id}`;
    await env.db.query(
      `CREATE TRIGGER ${unrecordable} BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.target_id = '${id}') EXECUTE FUNCTION audit_test_refuse()`,
    );
    try {
      assert.equal((await org.as(env.t.request.post(`/workflows/definitions/${id}/aliases/latest/activate`))).status, 500);
      assert.equal((await org.as(env.t.request.patch(`/workflows/definitions/${id}`)).send({ name: 'Renamed' })).status, 500);
    } finally {
      await env.db.query(`DROP TRIGGER ${unrecordable} ON audit_events`);
    }
    const unchanged = await org.as(env.t.request.get(`/workflows/definitions/${id}`));
    assert.equal(unchanged.body.name, 'Refused activation');
    const [bindings] = await env.db.query(`SELECT count(*)::int AS n FROM trigger_bindings WHERE workflow_id = $1 AND status = 'live'`, [
      id,
    ]);
    assert.equal(bindings.n, 0, 'no trigger went live');
    assert.equal((await org.as(env.t.request.get(`/workflows/definitions/${id}/aliases/latest`))).body.active, false);
    const requestId = newRequestId();
    const again = await org.as(env.t.request.post(`/workflows/definitions/${id}/aliases/latest/activate`).set('X-Request-Id', requestId));
    assert.equal(again.status, 200);
    assert.deepEqual(
      (await eventsOfRequest(env.db, requestId)).map((e) => e.action),
      ['workflow.alias.activate'],
    );
  });

  it('writes an execution start and its event together: neither when the event cannot be written, one per new execution', async () => {
    const published = await org.as(env.t.request.post('/workflows/definitions')).send({
      name: 'Audited start',
      steps: { start: { type: 'trigger', pluginType: 'manual' }, note: { type: 'module', pluginType: 'log', config: { message: 'hi' } } },
      connections: [{ from: 'start', to: 'note' }],
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const id = published.body.workflow.id as string;
    const execute = (requestId: string) =>
      org.as(env.t.request.post(`/workflows/definitions/${id}/execute`).set('X-Request-Id', requestId)).send({ idempotencyKey: 'once' });
    const executions = async () =>
      (await env.db.query(`SELECT count(*)::int AS n FROM executions WHERE workflow_id = $1`, [id]))[0].n as number;

    await env.db.query(
      `CREATE OR REPLACE FUNCTION audit_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql`,
    );
    const unrecordable = `audit_test_unstartable_${id}`;
    await env.db.query(
      `CREATE TRIGGER ${unrecordable} BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.details->>'workflowId' = '${id}') EXECUTE FUNCTION audit_test_refuse()`,
    );
    try {
      const refusedId = newRequestId();
      assert.equal((await execute(refusedId)).status, 500);
      assert.deepEqual(await eventsOfRequest(env.db, refusedId), []);
    } finally {
      await env.db.query(`DROP TRIGGER ${unrecordable} ON audit_events`);
    }
    assert.equal(await executions(), 0, 'no execution without its event');

    // The key is still free: the next start is new, with one event naming it.
    const firstId = newRequestId();
    const first = await execute(firstId);
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const [event, ...more] = await eventsOfRequest(env.db, firstId);
    assert.deepEqual(more, []);
    assert.deepEqual(
      [event.action, event.target_id, event.details.workflowId, event.details.idempotencyKey, event.details.source],
      ['execution.start', first.body.executionId, id, 'once', 'manual'],
    );
    // A repeated key answers the same execution and records no second start.
    const againId = newRequestId();
    const again = await execute(againId);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.executionId, first.body.executionId);
    assert.equal(again.body.deduplicated, true);
    assert.deepEqual(await eventsOfRequest(env.db, againId), []);
    assert.equal(await executions(), 1);
    await executionWhere(env, org, first.body.executionId, (body) => body.status === 'completed');
  });

  it('never records a config value, a literal webhook secret or a signal payload; definitions carry a diff', async () => {
    const created = await org
      .as(env.t.request.post('/workflows/config'))
      .send({ name: 'API_KEY', value: `${CANARY}-1`, secret: true, path: '/' });
    assert.equal(created.status, 201);
    const rotated = await org.as(env.t.request.patch(`/workflows/config/${created.body.id as string}`)).send({ value: `${CANARY}-2` });
    assert.equal(rotated.status, 200);
    const variable = await org.as(env.t.request.post('/workflows/config')).send({ name: 'REGION', value: `${CANARY}-3`, path: '/' });
    assert.equal(variable.status, 201);

    /** hook (webhook with a literal secret) ──▶ approval (signal-wait) */
    const definition = (secret: string) => ({
      name: 'Secretive',
      key: 'secretive',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        hook: { type: 'trigger', pluginType: 'webhook', config: { mode: 'start', secret } },
        approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '1h' } },
      },
      connections: [{ from: 'start', to: 'approval' }],
    });
    assert.equal((await org.as(env.t.request.put('/workflows/definitions/secretive')).send(definition(`${CANARY}-4`))).status, 201);
    const requestId = newRequestId();
    const republished = await org
      .as(env.t.request.put('/workflows/definitions/secretive').set('X-Request-Id', requestId))
      .send(definition(`${CANARY}-5`));
    assert.equal(republished.status, 200);
    const [publish] = await eventsOfRequest(env.db, requestId);
    assert.equal(publish.action, 'workflow.definition.publish');
    assert.deepEqual(publish.details.diff, {
      fields: [],
      steps: { added: [], removed: [], changed: ['hook'] },
      connections: { before: 1, after: 1 },
    });
    assert.deepEqual([publish.details.mode, publish.details.revision, publish.details.previousRevision], ['new-revision', 2, 1]);

    const started = await org.as(env.t.request.post('/workflows/definitions/secretive/execute')).send({});
    assert.equal(started.status, 202);
    const executionId = started.body.executionId as string;
    await executionWhere(env, org, executionId, (body) => body.status === 'waiting');
    const signalled = await org
      .as(env.t.request.post(`/workflows/executions/${executionId}/signals/approve`))
      .send({ token: `${CANARY}-6` });
    assert.equal(signalled.status, 200);

    const rows: Array<{ row: string }> = await env.db.query(`SELECT a::text AS row FROM audit_events a WHERE organization_id = $1`, [
      org.id,
    ]);
    assert.ok(rows.length >= 7, `expected the writes' events, got ${rows.length}`);
    assert.deepEqual(
      rows.filter((r) => r.row.includes(CANARY)),
      [],
    );
    const read = await events('?action=config.entry.rotate');
    assert.deepEqual(read.body.data[0].details, { name: 'API_KEY', secret: true, path: '/' });
  });

  it("records the server's own request id, the client's X-Request-Id beside it, and the client's address", async () => {
    const requestId = newRequestId();
    const res = await org
      .as(env.t.request.post('/workflows/config').set('X-Request-Id', requestId).set('X-Forwarded-For', '203.0.113.9'))
      .send({ name: 'WHO_ASKED', value: 'v', path: '/' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [event] = await eventsOfRequest(env.db, requestId);
    assert.match(event.request_id, /^[0-9a-f-]{36}$/, 'the server names the request itself');
    assert.notEqual(event.request_id, requestId);
    assert.equal(event.client_request_id, requestId);
    // No proxy is trusted here: the header is the client's own claim, and the socket's peer is recorded.
    assert.equal(event.client_address, '127.0.0.1');
    const listed = await org.as(env.t.request.get('/audit/events?action=config.entry.put'));
    const shown = (listed.body.data as Array<Record<string, unknown>>).find((e) => e.clientRequestId === requestId);
    assert.deepEqual([shown?.requestId, shown?.clientAddress], [event.request_id, '127.0.0.1']);
  });

  it('names a service account as a service token', async () => {
    const userId = String(Math.floor(Math.random() * 1e9) + 1);
    const registered = await org
      .as(env.t.request.post('/user'))
      .send({ id: Number(userId), organization_id: Number(org.id), type: 'service_account' });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const granted = await org.as(env.t.request.post(`/user/${userId}/grant`)).send([{ nrn: `organization=${org.id}`, role_slug: 'admin' }]);
    assert.equal(granted.status, 201, JSON.stringify(granted.body));
    const token = await env.t.token({ organizationId: org.id, userId, userType: 'service_account' });
    const requestId = newRequestId();
    const res = await env.t.request
      .post('/workflows/config')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', requestId)
      .send({ name: 'FROM_CI', value: 'v', path: '/' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [event] = await eventsOfRequest(env.db, requestId);
    assert.deepEqual([event.actor_kind, event.actor_id, event.action], ['service_token', userId, 'config.entry.put']);
  });

  it('answers 403 to a caller without audit:read (a viewer), in the administration dialect', async () => {
    const { userId } = await grantRole(env.db, org.id, 'viewer');
    const viewer = await env.t.token({ organizationId: org.id, userId });
    const res = await events('', (req) => req.set('Authorization', `Bearer ${viewer}`));
    assertDialect('admin', res, 403);
    const stranger = newOrganizationId();
    const outsider = await env.t.token({ organizationId: stranger, userId: await grantAdmin(env.db, stranger) });
    const theirs = await events('', (req) => req.set('Authorization', `Bearer ${outsider}`));
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body, { data: [], nextCursor: null }, 'another organization reads none of ours');
    assert.equal((await events()).status, 200, 'the administrator reads it');
  });

  it('filters by action, target, NRN, actor and time, and pages with an opaque cursor', async () => {
    const accounts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await org.as(env.t.request.post('/account')).send({ name: `Account ${i}`, organization_id: Number(org.id) });
      assert.equal(res.status, 201);
      accounts.push(res.body.id as number);
    }
    assert.equal((await org.as(env.t.request.patch(`/account/${accounts[2]}`)).send({ name: 'Renamed' })).status, 200);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await events(`?action=account.create&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data.map((e: { target: { id: string } }) => e.target.id));
      cursor = res.body.nextCursor as string | null;
      pages += 1;
    } while (cursor !== null && pages < 10);
    assert.deepEqual(seen, accounts.map(String).reverse(), 'newest first, each once');
    assert.equal(pages, 3);

    const onOne = await events(`?targetId=${accounts[2]}`);
    assert.deepEqual(
      onOne.body.data.map((e: { action: string }) => e.action),
      ['account.update', 'account.create'],
    );
    const [update] = onOne.body.data;
    assert.deepEqual(update.actor, { kind: 'user', id: org.userId });
    assert.equal(update.target.nrn, `organization=${org.id}:account=${accounts[2]}`);
    assert.deepEqual(update.details.changed, ['name']);
    assert.match(update.requestId, /.+/);
    assert.match(update.replica, /.+/);

    const byNrn = await events(`?nrn=organization=${org.id}:account=${accounts[0]}`);
    assert.deepEqual(
      byNrn.body.data.map((e: { target: { id: string } }) => e.target.id),
      [String(accounts[0])],
    );
    assert.equal((await events(`?nrn=organization=${org.id}`)).body.data.length, 6);
    assert.equal((await events(`?actor=${org.userId}`)).body.data.length, 6);
    assert.equal((await events('?actor=1')).body.data.length, 0);
    const future = new Date(Date.now() + 60_000).toISOString();
    const past = new Date(Date.now() - 3_600_000).toISOString();
    assert.equal((await events(`?from=${future}`)).body.data.length, 0);
    assert.equal((await events(`?to=${past}`)).body.data.length, 0);
    assert.equal((await events(`?from=${past}&to=${future}`)).body.data.length, 6);

    assertDialect('admin', await events('?cursor=bm90LW91cnM'), 400);
    assertDialect('admin', await events('?limit=201'), 400);
  });

  it('deletes events older than a cutoff in bounded batches (retention)', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await org.as(env.t.request.post('/account')).send({ name: `Old ${i}`, organization_id: Number(org.id) })).status, 201);
    await env.db.query(`UPDATE audit_events SET occurred_at = now() - interval '400 days' WHERE organization_id = $1`, [org.id]);
    assert.equal((await org.as(env.t.request.post('/account')).send({ name: 'Recent', organization_id: Number(org.id) })).status, 201);
    const repository = new AuditEventRepository(env.db.manager);
    const cutoff = new Date(Date.now() - 365 * 86_400_000);
    assert.equal(await repository.deleteOlderThan(cutoff, 2), 2);
    let more: number;
    do more = await repository.deleteOlderThan(cutoff, 2);
    while (more > 0);
    const left = await events();
    assert.deepEqual(
      left.body.data.map((e: { details: { name: string } }) => e.details.name),
      ['Recent'],
    );
  });
});
