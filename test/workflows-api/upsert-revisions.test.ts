import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { definition } from '../support/definitions';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

describe('workflows API: PUT by key and revisions', () => {
  let env: WfEnv;
  let org: WfOrg;
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });
  const put = (key: string, body: object) => org.auth(env.t.request.put(`/workflows/definitions/${key}`)).send(body);

  it('created, then overwritten for identical content (idempotent), then new-revision', async () => {
    const first = await put('flow', definition('Flow'));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.mode, 'created');
    assert.equal(first.body.workflow.key, 'flow');

    const same = await put('flow', definition('Flow renamed', { description: 'moved', path: '/ops', metadata: { a: 1 } }));
    assert.equal(same.status, 200);
    assert.equal(same.body.mode, 'overwritten');
    assert.equal(same.body.revision.revision, 1);
    assert.equal(same.body.workflow.id, first.body.workflow.id);
    assert.deepEqual([same.body.workflow.name, same.body.workflow.path, same.body.workflow.description], ['Flow renamed', '/ops', 'moved']);

    const again = await put('flow', definition('Flow renamed', { description: 'moved', path: '/ops', metadata: { a: 1 } }));
    assert.equal(again.body.mode, 'overwritten');

    const changed = await put('flow', definition('Flow renamed', { variables: { n: { initialValue: 1 } } }));
    assert.equal(changed.body.mode, 'new-revision');
    assert.equal(changed.body.revision.revision, 2);
    assert.equal(changed.body.latestAlias.revision, 2);
    const aliases = await org.auth(env.t.request.get('/workflows/definitions/flow/aliases'));
    assert.deepEqual(
      aliases.body.data.map((a: { name: string; revision: number }) => [a.name, a.revision]),
      [['latest', 2]],
    );
  });

  it("PUT by the server's wf_ id makes a new revision of that workflow, keeping its key; an unknown id is 404", async () => {
    // The compatible engine's upload scripts: create with POST, then revise by the id it answered.
    const created = await org.auth(env.t.request.post('/workflows/definitions')).send(definition('Flow', { key: 'by-id' }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.workflow.id as string;
    assert.match(id, /^wf_/);

    const revised = await put(id, definition('Flow', { key: 'by-id', variables: { n: { initialValue: 1 } } }));
    assert.equal(revised.status, 200, JSON.stringify(revised.body));
    assert.deepEqual([revised.body.mode, revised.body.revision.revision, revised.body.latestAlias.revision], ['new-revision', 2, 2]);
    assert.deepEqual([revised.body.workflow.id, revised.body.workflow.key], [id, 'by-id']);
    // Without a key in the body the key stays too; the same content overwrites.
    const same = await put(id, definition('Flow renamed', { variables: { n: { initialValue: 1 } } }));
    assert.deepEqual(
      [same.status, same.body.mode, same.body.workflow.key, same.body.workflow.name],
      [200, 'overwritten', 'by-id', 'Flow renamed'],
    );

    // A workflow created without a key stays without one.
    const keyless = await org.auth(env.t.request.post('/workflows/definitions')).send(definition('Keyless'));
    assert.equal(keyless.status, 201, JSON.stringify(keyless.body));
    const second = await put(keyless.body.workflow.id, definition('Keyless', { variables: { m: { initialValue: 2 } } }));
    assert.deepEqual([second.status, second.body.mode, second.body.workflow.key ?? null], [200, 'new-revision', null]);

    const moved = await put(id, definition('Flow', { key: 'another' }));
    assertDialect('problem', moved, 400);
    assert.match(JSON.stringify(moved.body), /must equal the workflow's key \(\\"by-id\\"\)/);
    const missing = await put('wf_000000000000000000000000', definition('Flow'));
    assertDialect('problem', missing, 404);
    assert.equal(missing.body.code ?? missing.body.type?.split('/').pop(), 'workflow-not-found', JSON.stringify(missing.body));
    const revisions = await org.auth(env.t.request.get(`/workflows/definitions/${id}/revisions`)).expect(200);
    assert.equal(revisions.body.data.length, 2);
  });

  it('treats the same content with keys reordered or respelled in snake_case as identical (overwritten)', async () => {
    await put('same', definition('Same', { variables: { a: { initialValue: 1 } } })).expect(201);
    const reordered = {
      connections: [{ to: 'work', from: 'trigger' }],
      variables: { a: { initialValue: 1 } },
      steps: [
        { config: { message: 'hello' }, plugin_type: 'log', type: 'module', id: 'work' },
        { plugin_type: 'manual', type: 'trigger', id: 'trigger' },
      ],
      name: 'Same',
    };
    const res = await put('same', reordered);
    assert.equal(res.body.mode, 'overwritten', JSON.stringify(res.body));
    assert.equal(res.body.revision.revision, 1);
  });

  it('rejects a body key that differs from the URL, a bad URL key and an invalid definition; nothing written', async () => {
    assertDialect('problem', await put('flow', definition('x', { key: 'other' })), 400);
    assertDialect('problem', await put('Bad_Key', definition('x')), 400);
    assertDialect('problem', await put('flow', { name: 'x', steps: { a: { type: 'module', pluginType: 'nope' } } }), 400);
    assert.equal((await snapshot(env.db, org.id)).workflows, 0);
    await put('flow', definition('x')).expect(201);
    const before = await snapshot(env.db, org.id);
    assertDialect('problem', await put('flow', { name: 'x', steps: 'nope' }), 400);
    assert.deepEqual(await snapshot(env.db, org.id), before);
  });

  it('50 concurrent PUTs of distinct content give contiguous revisions without gaps or duplicates', async function () {
    this.timeout(60_000);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => put('busy', definition('Busy', { variables: { n: { initialValue: i } } }))),
    );
    for (const res of responses) assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
    assert.equal(responses.filter((r) => r.body.mode === 'created').length, 1);
    const numbers = responses.map((r) => r.body.revision.revision as number).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const list = await org.auth(env.t.request.get('/workflows/definitions/busy/revisions?limit=100'));
    assert.equal(list.body.total, 50);
    const latest = await org.auth(env.t.request.get('/workflows/definitions/busy/aliases/latest'));
    assert.equal(latest.body.revision, 50);
  });

  it('lists revisions newest first without definitions unless asked, and reads one revision', async () => {
    await put('r', definition('R')).expect(201);
    await put('r', definition('R', { semanticVersion: '2.0.0', releaseNotes: 'second' })).expect(200);
    const list = await org.auth(env.t.request.get('/workflows/definitions/r/revisions'));
    assert.equal(list.status, 200);
    assert.deepEqual([list.body.page, list.body.limit, list.body.total], [1, 50, 2]);
    assert.deepEqual(
      list.body.data.map((r: { revision: number }) => r.revision),
      [2, 1],
    );
    assert.equal(list.body.data[0].definition, null);
    assert.equal(list.body.data[0].semanticVersion, '2.0.0');
    assert.equal(list.body.data[0].releaseNotes, 'second');
    assert.equal(list.body.data[0].createdBy, org.userId);
    const full = await org.auth(env.t.request.get('/workflows/definitions/r/revisions?includeDefinition=true&limit=1&page=2'));
    assert.equal(full.body.data[0].revision, 1);
    assert.equal(full.body.data[0].definition.name, 'R');
    const one = await org.auth(env.t.request.get('/workflows/definitions/r/revisions/2'));
    assert.equal(one.body.definition.semanticVersion, '2.0.0');
    assertDialect('problem', await org.auth(env.t.request.get('/workflows/definitions/r/revisions/9')), 404);
    assertDialect('problem', await org.auth(env.t.request.get('/workflows/definitions/r/revisions/zero')), 400);
  });

  it('reports CONFIG_ENTRY_UNRESOLVED warnings only for references without a visible value', async () => {
    await org.auth(env.t.request.post('/workflows/config')).send({ name: 'API_URL', value: 'https://x', path: '/team' }).expect(201);
    await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'TOKEN', value: 's3cr3t-value', secret: true, path: '/' })
      .expect(201);
    const body = definition('W', {
      path: '/team/sub',
      steps: {
        trigger: { type: 'trigger', pluginType: 'manual' },
        call: {
          type: 'module',
          pluginType: 'http-request',
          config: {
            url: '${{ vars.API_URL }}',
            headers: { a: '${{ secrets.TOKEN }}', b: '${{ vars.TOKEN }}', c: '${{ secrets.MISSING }}' },
          },
        },
      },
      connections: [{ from: 'trigger', to: 'call' }],
    });
    const res = await put('warn', body);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.warnings, [
      { code: 'CONFIG_ENTRY_UNRESOLVED', name: 'TOKEN', kind: 'var' },
      { code: 'CONFIG_ENTRY_UNRESOLVED', name: 'MISSING', kind: 'secret' },
    ]);
    const elsewhere = await put('warn2', { ...body, path: '/other' });
    assert.deepEqual(
      elsewhere.body.warnings.map((w: { name: string }) => w.name),
      ['API_URL', 'TOKEN', 'MISSING'],
    );
  });
});
