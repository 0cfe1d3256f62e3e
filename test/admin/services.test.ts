import assert from 'node:assert/strict';
import { assertAdminError, bearer, newOrg, useAdminApp, userWithRole } from './support';

describe('admin: services and actions', () => {
  const { env, org } = useAdminApp();
  let specId: string;
  let createSpecId: string;
  let customSpecId: string;
  beforeEach(async () => {
    const spec = await env.t.request
      .post('/service_specification')
      .set(...bearer(org.admin))
      .send({
        name: 'Queue',
        visible_to: [`organization=${org.id}:account=1`],
        attributes: {
          schema: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 1 }, name: { type: 'string' } } },
          values: { size: 1 },
        },
        dimensions: { env: { required: true, values: ['dev', 'prod'] } },
      });
    specId = spec.body.id;
    const actions = await env.t.request.get(`/service_specification/${specId}/action_specification`).set(...bearer(org.admin));
    createSpecId = actions.body.results.find((a: { type: string }) => a.type === 'create').id;
    const custom = await env.t.request
      .post(`/service_specification/${specId}/action_specification`)
      .set(...bearer(org.admin))
      .send({
        name: 'Purge',
        parameters: { type: 'object', properties: { older_than_days: { type: 'integer' } }, additionalProperties: false },
        results: { type: 'object', required: ['purged'], properties: { purged: { type: 'integer' } } },
      });
    customSpecId = custom.body.id;
  });

  const nrn = `organization=ORG:account=1:namespace=2`;
  const createService = (body: object, token = org.admin) =>
    env.t.request
      .post('/service')
      .set(...bearer(token))
      .send({
        specification_id: specId,
        entity_nrn: nrn.replace('ORG', org.id),
        attributes: { size: 2 },
        dimensions: { env: 'dev' },
        ...body,
      });
  const count = async (table: 'services' | 'service_actions'): Promise<number> =>
    Number(
      (
        await env.db.query(
          `SELECT count(*) AS n FROM ${table} WHERE ${table === 'services' ? 'specification_id' : 'service_id IN (SELECT id FROM services WHERE specification_id'} = $1${table === 'services' ? '' : ')'}`,
          [specId],
        )
      )[0].n,
    );

  it('creates a service with validated attributes and dimensions, named by default', async () => {
    const res = await createService({});
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.name, /^queue-[0-9a-f]{6}$/);
    assert.equal(res.body.entity_nrn, `organization=${org.id}:account=1:namespace=2`);
    assert.equal((await createService({ attributes: { size: 3, name: 'orders' } })).body.name, 'orders');
    const read = await env.t.request.get(`/service/${res.body.id}`).set(...bearer(org.admin));
    assert.deepEqual(read.body, res.body);
  });

  it('refuses invalid services and writes nothing', async () => {
    assertAdminError(await createService({ attributes: { size: 0 } }), 400, 'SERVICE.INVALID_ATTRIBUTES');
    assertAdminError(await createService({ attributes: {} }), 400, 'SERVICE.INVALID_ATTRIBUTES');
    assertAdminError(await createService({ dimensions: {} }), 400, 'SERVICE.INVALID_DIMENSIONS');
    assertAdminError(await createService({ dimensions: { env: 'qa' } }), 400, 'SERVICE.INVALID_DIMENSIONS');
    assertAdminError(await createService({ entity_nrn: `organization=${org.id}:account=3` }), 400, 'SERVICE.UNKNOWN_SPECIFICATION');
    assertAdminError(await createService({ entity_nrn: `organization=${org.id}:account=*` }), 400, 'SERVICE.INVALID_NRN');
    assertAdminError(
      await createService({ specification_id: '00000000-0000-4000-8000-000000000000' }),
      400,
      'SERVICE.UNKNOWN_SPECIFICATION',
    );
    for (const body of [
      { entity_nrn: 'account=1' },
      { specification_id: 'x' },
      { color: 'red' },
      { name: '' },
      { name: 'n'.repeat(256) },
      { attributes: [] },
    ]) {
      assertAdminError(await createService(body), 400, 'validation_failed');
    }
    assert.equal(await count('services'), 0);
  });

  it('requires a name when the specification does not use default naming', async () => {
    await env.t.request
      .patch(`/service_specification/${specId}`)
      .set(...bearer(org.admin))
      .send({ use_default_naming: false });
    assertAdminError(await createService({}), 400, 'SERVICE.NAME_REQUIRED');
    assert.equal((await createService({ name: 'Named' })).status, 201);
  });

  it('creates, lists, reads and patches actions with contract shapes', async () => {
    const service = (await createService({})).body;
    const created = await env.t.request
      .post(`/service/${service.id}/action`)
      .set(...bearer(org.admin))
      .send({ specification_id: createSpecId, parameters: { size: 4 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const action = created.body;
    assert.deepEqual(
      [action.status, action.service_id, action.specification_id, action.messages, action.results, action.created_by, action.link_id],
      ['pending', service.id, createSpecId, [], {}, String(org.adminId), null],
    );
    assert.equal(action.name, 'Create Queue');
    assert.match(action.created_at, /^\d{4}-\d{2}-\d{2}$/, 'the contract gives created_at format date');

    const url = `/service/${service.id}/action/${action.id}`;
    for (const status of ['pending_create', 'in_progress', 'success', 'failed', 'cancelled', 'pending']) {
      const res = await env.t.request
        .patch(url)
        .set(...bearer(org.admin))
        .send({ status });
      assert.equal(res.body.status, status);
    }
    const before = Date.now();
    const patched = await env.t.request
      .patch(url)
      .set(...bearer(org.admin))
      .send({
        name: 'Provision queue',
        messages: [{ message: 'started' }, { level: 'warning', message: 'slow', timestamp: 1_700_000_000_123 }],
        results: { ok: true },
      });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.name, patched.body.slug], ['Provision queue', 'provision-queue']);
    assert.equal(patched.body.messages[0].level, 'info');
    assert.ok(patched.body.messages[0].timestamp >= before && patched.body.messages[0].timestamp <= Date.now());
    assert.deepEqual(patched.body.messages[1], { level: 'warning', message: 'slow', timestamp: 1_700_000_000_123 });
    const more = await env.t.request
      .patch(url)
      .set(...bearer(org.admin))
      .send({ messages: [{ level: 'fatal', message: 'boom' }] });
    assert.equal(more.body.messages.length, 3);

    const list = await env.t.request.get(`/service/${service.id}/action`).set(...bearer(org.admin));
    assert.deepEqual(list.body.paging, { total: 1, offset: 0, limit: 30 });
    assert.equal(list.body.results[0].id, action.id);
    const read = await env.t.request.get(url).set(...bearer(org.admin));
    assert.deepEqual(read.body, more.body);

    // An action holds at most ACTION_MAX_MESSAGES (1000) messages: an update that would pass it changes nothing.
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ message: `progress ${i}` }));
    for (let i = 0; i < 9; i++)
      assert.equal(
        (
          await env.t.request
            .patch(url)
            .set(...bearer(org.admin))
            .send({ messages: batch(100) })
        ).status,
        200,
      );
    const full = await env.t.request
      .patch(url)
      .set(...bearer(org.admin))
      .send({ messages: batch(97) });
    assert.equal(full.body.messages.length, 1000);
    const over = await env.t.request
      .patch(url)
      .set(...bearer(org.admin))
      .send({ messages: batch(1), status: 'failed' });
    assertAdminError(over, 400, 'ACTION.TOO_MANY_MESSAGES');
    assert.match(over.body.message, /ACTION_MAX_MESSAGES/);
    const unchanged = await env.t.request.get(url).set(...bearer(org.admin));
    assert.deepEqual([unchanged.body.messages.length, unchanged.body.status], [1000, full.body.status]);
    assert.equal(
      (
        await env.t.request
          .patch(url)
          .set(...bearer(org.admin))
          .send({ status: 'failed' })
      ).status,
      200,
      'other fields still change',
    );
  });

  it('validates action parameters and results against the action specification', async () => {
    const service = (await createService({})).body;
    const post = (body: object) =>
      env.t.request
        .post(`/service/${service.id}/action`)
        .set(...bearer(org.admin))
        .send(body);
    assertAdminError(
      await post({ specification_id: customSpecId, parameters: { older_than_days: 'x' } }),
      400,
      'ACTION.INVALID_PARAMETERS',
    );
    assertAdminError(await post({ specification_id: customSpecId, parameters: { other: 1 } }), 400, 'ACTION.INVALID_PARAMETERS');
    assertAdminError(await post({ specification_id: '00000000-0000-4000-8000-000000000000' }), 400, 'ACTION.UNKNOWN_SPECIFICATION');
    assertAdminError(await post({ specification_id: customSpecId, surprise: 1 }), 400, 'validation_failed');
    assertAdminError(await post({ specification_id: customSpecId, name: 'n'.repeat(256) }), 400, 'validation_failed');
    assert.equal(await count('service_actions'), 0);

    const action = (await post({ specification_id: customSpecId, parameters: { older_than_days: 3 } })).body;
    const url = `/service/${service.id}/action/${action.id}`;
    const patch = (body: object) =>
      env.t.request
        .patch(url)
        .set(...bearer(org.admin))
        .send(body);
    assertAdminError(await patch({ results: { purged: 'many' } }), 400, 'ACTION.INVALID_RESULTS');
    assertAdminError(await patch({ results: {} }), 400, 'ACTION.INVALID_RESULTS');
    assertAdminError(await patch({ parameters: { older_than_days: 1.5 } }), 400, 'ACTION.INVALID_PARAMETERS');
    const invalid: object[] = [
      { status: 'done' },
      { messages: [{ level: 'loud', message: 'x' }] },
      { messages: [{ message: 'x', extra: 1 }] },
      { messages: [{ level: 'info' }] },
      { messages: [{ message: 'x', timestamp: '2024-01-01' }] },
      { id: action.id },
      { desired_specification_id: 'nope' },
    ];
    for (const body of invalid) assertAdminError(await patch(body), 400, 'validation_failed');
    // The desired specification's schemas apply once it is set.
    assertAdminError(
      await patch({ desired_specification_id: '00000000-0000-4000-8000-000000000000' }),
      400,
      'ACTION.UNKNOWN_SPECIFICATION',
    );
    assert.equal((await patch({ desired_specification_id: createSpecId, results: { anything: 1 } })).status, 200);
    const [row] = await env.db.query(`SELECT status, messages, results FROM service_actions WHERE id = $1`, [action.id]);
    assert.deepEqual([row.status, row.messages, row.results], ['pending', [], { anything: 1 }]);
  });

  it('answers 403 without permission and 404 from another organization on every id route', async () => {
    const service = (await createService({})).body;
    const action = (
      await env.t.request
        .post(`/service/${service.id}/action`)
        .set(...bearer(org.admin))
        .send({ specification_id: createSpecId, parameters: { size: 1 } })
    ).body;
    const viewer = await userWithRole(env, org, 'viewer');
    assert.equal((await env.t.request.get(`/service/${service.id}`).set(...bearer(viewer.token))).status, 200);
    assertAdminError(
      await env.t.request
        .patch(`/service/${service.id}/action/${action.id}`)
        .set(...bearer(viewer.token))
        .send({ status: 'failed' }),
      403,
      'forbidden',
    );
    assertAdminError(await createService({}, viewer.token), 403, 'forbidden');
    const other = await newOrg(env);
    const auth = bearer(other.admin);
    const responses = [
      await env.t.request.get(`/service/${service.id}`).set(...auth),
      await env.t.request
        .post(`/service/${service.id}/action`)
        .set(...auth)
        .send({ specification_id: createSpecId }),
      await env.t.request.get(`/service/${service.id}/action`).set(...auth),
      await env.t.request.get(`/service/${service.id}/action/${action.id}`).set(...auth),
      await env.t.request
        .patch(`/service/${service.id}/action/${action.id}`)
        .set(...auth)
        .send({ status: 'failed' }),
    ];
    for (const res of responses) assertAdminError(res, 404, 'SERVICE.NOT_FOUND');
    assertAdminError(
      await env.t.request.get(`/service/${service.id}/action/00000000-0000-4000-8000-000000000000`).set(...bearer(org.admin)),
      404,
      'ACTION.NOT_FOUND',
    );
    const [row] = await env.db.query(`SELECT status FROM service_actions WHERE id = $1`, [action.id]);
    assert.equal(row.status, 'pending');
  });
});
