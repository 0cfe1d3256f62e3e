import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { definition } from '../support/definitions';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

describe('workflows API: definitions', () => {
  let env: WfEnv;
  let org: WfOrg;
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });

  it('POST creates revision 1 with alias latest and a PublishResult', async () => {
    const res = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('Demo', { key: 'demo', semanticVersion: '1.0.0', releaseNotes: 'first' }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.workflow.id, /^wf_/);
    assert.equal(res.body.workflow.key, 'demo');
    assert.equal(res.body.workflow.path, '/');
    assert.equal(res.body.workflow.nrn, `organization=${org.id}`);
    assert.equal(res.body.workflow.organizationId, org.id);
    assert.equal(res.body.revision.revision, 1);
    assert.equal(res.body.revision.createdBy, org.userId);
    assert.equal(res.body.revision.semanticVersion, '1.0.0');
    assert.equal(res.body.revision.releaseNotes, 'first');
    assert.equal(typeof res.body.revision.engineVersion, 'string');
    assert.deepEqual(res.body.revision.definition.triggers, [{ id: 'trigger', pluginType: 'manual', config: {} }]);
    assert.deepEqual(
      { name: res.body.latestAlias.name, revision: res.body.latestAlias.revision, active: res.body.latestAlias.active },
      { name: 'latest', revision: 1, active: false },
    );
    assert.deepEqual(res.body.warnings, []);
    assert.equal('mode' in res.body, false);
  });

  it('accepts YAML with snake_case keys and steps as an array', async () => {
    const yaml = [
      'name: From YAML',
      'key: yaml-flow',
      'steps:',
      '  - id: start',
      '    type: trigger',
      '    plugin_type: manual',
      '  - id: wait',
      '    type: module',
      '    plugin_type: signal-wait',
      '    config: { signal_name: go, timeout: 2h }',
      '    depends_on: [start]',
      '',
    ].join('\n');
    const res = await org.auth(env.t.request.post('/workflows/definitions')).set('Content-Type', 'application/yaml').send(yaml);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const def = res.body.revision.definition;
    assert.equal(def.steps.wait.config.signalName, 'go');
    assert.deepEqual(
      def.connections.map((x: { from: string; to: string }) => `${x.from}->${x.to}`),
      ['start->wait'],
    );
  });

  it('answers 400 problem+json with one error per offending field and writes nothing', async () => {
    const before = await snapshot(env.db, org.id);
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: '',
      key: 'Bad Key',
      steps: { 'bad-id': { type: 'module', pluginType: 'no-op' }, x: { type: 'module', pluginType: 'slack' } },
      connections: [{ from: 'x', to: 'ghost' }],
    });
    assertDialect('problem', res, 400);
    assert.match(res.body.type, /\/graph-invalid$/);
    assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path).sort(), [
      '/connections/0/to',
      '/key',
      '/name',
      '/steps/bad-id',
      '/steps/x/pluginType',
    ]);
    assert.deepEqual(await snapshot(env.db, org.id), before);
  });

  for (const [label, body, path] of [
    [
      'unknown plugin',
      definition('x', { steps: { a: { type: 'module', pluginType: 'jira-create-issue' } }, connections: [] }),
      '/steps/a/pluginType',
    ],
    [
      'bad plugin config',
      definition('x', { steps: { a: { type: 'module', pluginType: 'http-request', config: { url: 5 } } }, connections: [] }),
      '/steps/a/config/url',
    ],
    [
      'bad cron',
      definition('x', { steps: { t: { type: 'trigger', pluginType: 'cron', config: { schedule: 'every day' } } }, connections: [] }),
      '/steps/t/config/schedule',
    ],
    [
      'bad duration',
      definition('x', { steps: { a: { type: 'module', pluginType: 'delay', config: { duration: 'a while' } } }, connections: [] }),
      '/steps/a/config/duration',
    ],
    [
      'expression that does not parse',
      definition('x', { connections: [{ from: 'trigger', to: 'work', condition: 'a ==' }] }),
      '/connections/0/condition',
    ],
    [
      'undeclared port',
      definition('x', { connections: [{ from: 'trigger', to: 'work', sourcePort: 'loop' }] }),
      '/connections/0/sourcePort',
    ],
    ['not an object', [1, 2], ''],
  ] as Array<[string, unknown, string]>) {
    it(`rejects ${label} with the offending path and writes nothing`, async () => {
      const res = await org.auth(env.t.request.post('/workflows/definitions')).send(body as object);
      assertDialect('problem', res, 400);
      assert.ok(
        res.body.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(res.body.errors),
      );
      assert.equal((await snapshot(env.db, org.id)).workflows, 0);
    });
  }

  it('answers 409 on a duplicate key and writes nothing', async () => {
    await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('A', { key: 'dup' }))
      .expect(201);
    const before = await snapshot(env.db, org.id);
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send(definition('B', { key: 'dup' }));
    assertDialect('problem', res, 409);
    assert.deepEqual(await snapshot(env.db, org.id), before);
  });

  it('discards a client triggers value', async () => {
    const res = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('T', { triggers: [{ id: 'ghost', pluginType: 'cron' }] }));
    assert.equal(res.status, 201);
    assert.deepEqual(
      res.body.revision.definition.triggers.map((t: { id: string }) => t.id),
      ['trigger'],
    );
  });

  it('GET by id or key, list with path prefix and text filters, paged', async () => {
    const a = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('Payments sync', { key: 'pay', path: '/team/payments' }));
    await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('Billing', { path: '/team/billing' }))
      .expect(201);
    await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('Other', { path: '/teams' }))
      .expect(201);
    const byKey = await org.auth(env.t.request.get('/workflows/definitions/pay'));
    assert.equal(byKey.body.id, a.body.workflow.id);
    const byId = await org.auth(env.t.request.get(`/workflows/definitions/${a.body.workflow.id}`));
    assert.equal(byId.body.key, 'pay');
    const team = await org.auth(env.t.request.get('/workflows/definitions?path=/team'));
    assert.deepEqual(team.body.data.map((w: { name: string }) => w.name).sort(), ['Billing', 'Payments sync']);
    assert.equal(team.body.total, 2);
    const text = await org.auth(env.t.request.get('/workflows/definitions?text=sync'));
    assert.deepEqual(
      text.body.data.map((w: { name: string }) => w.name),
      ['Payments sync'],
    );
    const paged = await org.auth(env.t.request.get('/workflows/definitions?limit=2&page=2'));
    assert.deepEqual(
      { page: paged.body.page, limit: paged.body.limit, total: paged.body.total, n: paged.body.data.length },
      { page: 2, limit: 2, total: 3, n: 1 },
    );
    const empty = await org.auth(env.t.request.get('/workflows/definitions?limit=2&page=9'));
    assert.equal(empty.body.total, 3);
  });

  it('isolates organizations: another organization gets 404 everywhere', async () => {
    const created = await org.auth(env.t.request.post('/workflows/definitions')).send(definition('Mine', { key: 'mine' }));
    const id = created.body.workflow.id;
    const as = (req: import('supertest').Test) => req.set('Authorization', `Bearer ${org.other.token}`);
    for (const ref of [id, 'mine']) {
      assertDialect('problem', await as(env.t.request.get(`/workflows/definitions/${ref}`)), 404);
      assertDialect('problem', await as(env.t.request.patch(`/workflows/definitions/${ref}`)).send({ name: 'x' }), 404);
      assertDialect('problem', await as(env.t.request.delete(`/workflows/definitions/${ref}`)), 404);
      assertDialect('problem', await as(env.t.request.get(`/workflows/definitions/${ref}/revisions`)), 404);
      assertDialect('problem', await as(env.t.request.get(`/workflows/definitions/${ref}/aliases`)), 404);
    }
    const res = await as(env.t.request.get(`/workflows/definitions/${id}`));
    assert.match(res.body.type, /\/workflow-not-found$/);
    assert.equal((await as(env.t.request.get('/workflows/definitions'))).body.total, 0);
    // The same key is free in the other organization.
    assert.equal((await as(env.t.request.post('/workflows/definitions')).send(definition('Theirs', { key: 'mine' }))).status, 201);
  });

  it('PATCH updates workflow-level fields without a new revision; bad input writes nothing', async () => {
    const created = await org.auth(env.t.request.post('/workflows/definitions')).send(definition('Old', { key: 'p' }));
    const res = await org
      .auth(env.t.request.patch('/workflows/definitions/p'))
      .send({ name: 'New', path: '/a//b/', metadata: { team: 'x' }, description: 'd' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.name, res.body.path, res.body.metadata, res.body.description], ['New', '/a/b', { team: 'x' }, 'd']);
    assert.equal(res.body.latestRevision, 1);
    for (const body of [{ key: 'other' }, { path: 'relative' }, { name: '' }, { name: 5 }]) {
      assertDialect('problem', await org.auth(env.t.request.patch('/workflows/definitions/p')).send(body), 400);
    }
    const after = await org.auth(env.t.request.get(`/workflows/definitions/${created.body.workflow.id}`));
    assert.deepEqual([after.body.name, after.body.path, after.body.key], ['New', '/a/b', 'p']);
  });

  it('DELETE removes the workflow; 404 afterwards', async () => {
    await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(definition('D', { key: 'del' }))
      .expect(201);
    assert.equal((await org.auth(env.t.request.delete('/workflows/definitions/del'))).status, 204);
    assertDialect('problem', await org.auth(env.t.request.get('/workflows/definitions/del')), 404);
    assert.deepEqual(await snapshot(env.db, org.id), {
      workflows: 0,
      workflow_revisions: 0,
      workflow_aliases: 0,
      trigger_bindings: 0,
      config_entries: 0,
    });
  });

  it('validate reports errors and warnings without saving', async () => {
    const bad = await org
      .auth(env.t.request.post('/workflows/definitions/validate'))
      .send(definition('V', { steps: { a: { type: 'module', pluginType: 'nope' } }, connections: [] }));
    assert.equal(bad.status, 200);
    assert.equal(bad.body.valid, false);
    assert.deepEqual(
      bad.body.errors.map((e: { path: string }) => e.path),
      ['/steps/a/pluginType'],
    );
    const good = await org.auth(env.t.request.post('/workflows/definitions/validate')).send(
      definition('V', {
        steps: { a: { type: 'module', pluginType: 'log', config: { message: '${{ secrets.TOKEN }} ${{ vars.URL }}' } } },
        connections: [],
      }),
    );
    assert.deepEqual(good.body, {
      valid: true,
      errors: [],
      warnings: [
        { code: 'CONFIG_ENTRY_UNRESOLVED', name: 'TOKEN', kind: 'secret' },
        { code: 'CONFIG_ENTRY_UNRESOLVED', name: 'URL', kind: 'var' },
      ],
    });
    assert.equal((await snapshot(env.db, org.id)).workflows, 0);
  });

  it('validates against an existing workflow, counting its own config entries', async () => {
    await org
      .auth(env.t.request.put('/workflows/definitions/host'))
      .send(definition('Host', { path: '/x' }))
      .expect(201);
    await org.auth(env.t.request.post('/workflows/config')).send({ name: 'ONLY_HERE', value: 'v', workflow: 'host' }).expect(201);
    const body = definition('V', {
      path: '/x',
      steps: { a: { type: 'module', pluginType: 'log', config: { message: '${{ vars.ONLY_HERE }}' } } },
      connections: [],
    });
    const scoped = await org.auth(env.t.request.post('/workflows/definitions/host/validate')).send(body);
    assert.deepEqual(scoped.body, { valid: true, errors: [], warnings: [] });
    const unscoped = await org.auth(env.t.request.post('/workflows/definitions/validate')).send(body);
    assert.deepEqual(unscoped.body.warnings, [{ code: 'CONFIG_ENTRY_UNRESOLVED', name: 'ONLY_HERE', kind: 'var' }]);
    assertDialect('problem', await org.auth(env.t.request.post('/workflows/definitions/nope/validate')).send(body), 404);
  });

  it('requires a token', async () => {
    assertDialect('problem', await env.t.request.post('/workflows/definitions').send(definition()), 401);
  });
});
