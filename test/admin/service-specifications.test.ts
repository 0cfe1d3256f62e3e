import assert from 'node:assert/strict';
import { assertAdminError, bearer, newOrg, useAdminApp, userWithRole } from './support';

describe('admin: service specifications', () => {
  const { env, org } = useAdminApp();

  const nrn = (suffix = '') => `organization=${org.id}${suffix}`;
  const create = (body: object, token = org.admin) =>
    env.t.request
      .post('/service_specification')
      .set(...bearer(token))
      .send({ name: 'Postgres DB', visible_to: [nrn()], ...body });
  const patch = (id: string, body: object, token = org.admin) =>
    env.t.request
      .patch(`/service_specification/${id}`)
      .set(...bearer(token))
      .send(body);
  const specCount = async (): Promise<number> =>
    Number((await env.db.query(`SELECT count(*) AS n FROM service_specifications WHERE organization_id = $1`, [org.id]))[0].n);
  const sizeSchema = {
    type: 'object',
    required: ['min_size'],
    properties: { min_size: { type: 'integer' }, max_size: { type: 'integer', minimum: { $data: '1/min_size' } } },
  };

  it('creates with defaults, a generated unique slug and default actions', async () => {
    const res = await create({ attributes: { schema: sizeSchema, values: { min_size: 1, max_size: 2 } } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const spec = res.body;
    assert.match(spec.id, /^[0-9a-f-]{36}$/);
    assert.equal(spec.slug, 'postgres-db');
    assert.match(spec.created_at, /^\d{4}-\d{2}-\d{2}$/, 'the contract gives created_at format date');
    assert.match(spec.updated_at, /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(spec.selectors, { imported: false, provider: 'any', category: 'any', sub_category: 'any' });
    assert.deepEqual(
      [spec.type, spec.assignable_to, spec.use_default_actions, spec.use_default_naming, spec.package_id],
      ['dependency', 'any', true, true, null],
    );
    assert.equal((await create({})).body.slug, 'postgres-db-2');

    const actions = await env.t.request.get(`/service_specification/${spec.id}/action_specification`).set(...bearer(org.admin));
    assert.deepEqual(actions.body.results.map((a: { type: string }) => a.type).sort(), ['create', 'delete', 'update']);
    const createAction = actions.body.results.find((a: { type: string }) => a.type === 'create');
    assert.deepEqual(createAction.parameters, sizeSchema);
    assert.equal(actions.body.results.find((a: { type: string }) => a.type === 'update').parameters.required, undefined);

    const read = await env.t.request.get(`/service_specification/${spec.id}`).set(...bearer(org.admin));
    assert.deepEqual(read.body, spec);
  });

  it('defaults use_default_actions to false for scope specifications; an explicit value wins', async () => {
    const scope = await create({ name: 'K8s scope', type: 'scope' });
    assert.equal(scope.body.use_default_actions, false);
    const none = await env.t.request.get(`/service_specification/${scope.body.id}/action_specification`).set(...bearer(org.admin));
    assert.deepEqual(none.body.results, []);
    assert.equal((await create({ name: 'Scope 2', type: 'scope', use_default_actions: true })).body.use_default_actions, true);
    const dep = await create({ name: 'Dep', use_default_actions: false });
    assert.equal(dep.body.use_default_actions, false);
    // Switching defaults on generates them; off removes the unused ones.
    assert.equal((await patch(dep.body.id, { use_default_actions: true })).status, 200);
    const on = await env.t.request.get(`/service_specification/${dep.body.id}/action_specification`).set(...bearer(org.admin));
    assert.equal(on.body.results.length, 3);
    await patch(dep.body.id, { use_default_actions: false });
    const off = await env.t.request.get(`/service_specification/${dep.body.id}/action_specification`).set(...bearer(org.admin));
    assert.equal(off.body.results.length, 0);
  });

  it('validates attribute values against the schema, including $data comparisons', async () => {
    const bad = await create({ attributes: { schema: sizeSchema, values: { min_size: 5, max_size: 3 } } });
    assertAdminError(bad, 400, 'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES');
    assert.match(bad.body.message, /\/attributes\/values\/max_size/);
    assertAdminError(
      await create({ attributes: { schema: sizeSchema, values: {} } }),
      400,
      'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES',
    );
    const exclusive = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number', exclusiveMinimum: { $data: '1/a' } } } };
    assertAdminError(
      await create({ attributes: { schema: exclusive, values: { a: 2, b: 2 } } }),
      400,
      'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES',
    );
    const lengths = { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', maxLength: { $data: '1/n' } } } };
    assertAdminError(
      await create({ attributes: { schema: lengths, values: { n: 2, s: 'abc' } } }),
      400,
      'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES',
    );
    assert.equal((await create({ attributes: { schema: lengths, values: { n: 3, s: 'abc' } } })).status, 201);
    assert.equal(await specCount(), 1);
  });

  it('refuses invalid and slow schemas quickly, writing nothing', async () => {
    // Past the schema's 24 levels, within the body's 64 (BODY_MAX_DEPTH refuses deeper bodies first).
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 15; i += 1) deep = { type: 'object', properties: { a: deep } };
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    const schemas: object[] = [
      { type: 'strin' },
      { minimum: 'x' },
      { properties: [] },
      { $ref: 'https://example.com/schema.json' },
      { $ref: '#/definitions/missing' },
      deep,
      wide,
      { type: 'string', pattern: '(x)\\1' },
      { type: 'string', pattern: '(?=x)y' },
      { type: 'string', pattern: '[' },
      { type: 'string', pattern: 'a'.repeat(300) },
      { type: 'object', properties: { p: { type: 'string' }, s: { type: 'string', pattern: { $data: '1/p' } } } },
      { type: 'object', properties: { f: { type: 'string' }, s: { type: 'string', format: { $data: '1/f' } } } },
      { type: 'array', uniqueItems: true, items: { type: 'object' } },
      { type: 'array', uniqueItems: true, maxItems: 100_000 },
    ];
    for (const schema of schemas) {
      const started = Date.now();
      const res = await create({ attributes: { schema, values: {} } });
      assertAdminError(res, 400, 'INVALID_JSON_SCHEMA');
      assert.ok(Date.now() - started < 500, `refused in ${Date.now() - started} ms`);
    }
    let deeper: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200; i += 1) deeper = { type: 'object', properties: { a: deeper } };
    assertAdminError(await create({ attributes: { schema: deeper, values: {} } }), 400, 'body_too_deep');
    assert.equal(
      (
        await create({
          attributes: {
            schema: { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' } } },
            values: { s: 'a-b' },
          },
        })
      ).status,
      201,
    );
    const bounded = {
      type: 'object',
      properties: {
        tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        objs: { type: 'array', uniqueItems: true, maxItems: 50 },
      },
    };
    assert.equal((await create({ attributes: { schema: bounded, values: { tags: ['a', 'b'], objs: [{}, { a: 1 }] } } })).status, 201);
    assert.equal(await specCount(), 2);
  });

  it('matches user patterns in linear time: catastrophic shapes cannot freeze the API', async () => {
    const evil = `${'a'.repeat(50_000)}!`;
    const attacks: Array<[string, string]> = [
      ['^(a+)+$', evil],
      ['(a|aa)*b', evil],
      ['^(\\w+\\s?)*$', evil],
      ['(.*a){25}', `${'a'.repeat(24)}${'b'.repeat(50_000)}`],
    ];
    for (const [pattern, value] of attacks) {
      const schema = { type: 'object', properties: { s: { type: 'string', pattern } } };
      const started = Date.now();
      const res = await create({ attributes: { schema, values: { s: value } } });
      assert.equal(res.body.code, 'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES', `${pattern}: ${res.status}`);
      assert.ok(Date.now() - started < 1000, `${pattern} took ${Date.now() - started} ms`);
    }
    const keys = { type: 'object', patternProperties: { '^(\\w+\\s?)*$': { type: 'string' } }, additionalProperties: false };
    assert.equal((await create({ attributes: { schema: keys, values: { ['a'.repeat(30)]: 'x' } } })).status, 201);
  });

  it('refuses wrong types, unknown properties, oversized selectors and bad NRNs', async () => {
    const bad: object[] = [
      { name: '' },
      { name: null },
      { visible_to: [] },
      { visible_to: ['organization=1:bogus=1'] },
      { visible_to: 'organization=1' },
      { surprise: true },
      { attributes: { schema: {} } },
      { attributes: { schema: {}, values: {}, extra: 1 } },
      { selectors: { provider: '' } },
      { selectors: { category: 'c'.repeat(101) } },
      { selectors: { custom: { nested: true } } },
      { selectors: { imported: 'yes' } },
      { type: 'service' },
      { assignable_to: 'everyone' },
      { dimensions: { env: { values: ['prod'] } } },
      { scopes: { provider: { values: [] } } },
      { scopes: { provider: { values: ['AWS:WEB_POOL:ECS'] } } },
      { scopes: { other: {} } },
      { package_id: 'not-a-uuid' },
      { use_default_actions: 'true' },
    ];
    for (const body of bad) assertAdminError(await create(body), 400, 'validation_failed');
    assertAdminError(await create({ visible_to: [nrn(), 'organization=424242'] }), 400, 'SERVICE_SPECIFICATION.INVALID_VISIBILITY');
    assertAdminError(await create({ visible_to: ['organization=*'] }), 400, 'SERVICE_SPECIFICATION.INVALID_VISIBILITY');
    assert.equal(await specCount(), 0);
    const ok = await create({
      selectors: { provider: 'aws', custom: 7, flag: true, none: null },
      dimensions: { env: { required: true, values: ['prod'] } },
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.selectors.custom, 7);
  });

  it('accepts fixed provider scopes and uuids of scope specifications only', async () => {
    const scope = (await create({ name: 'Scope', type: 'scope' })).body;
    const dependency = (await create({ name: 'Dependency' })).body;
    const fixed = [
      'AWS:SERVERLESS:LAMBDA',
      'AWS:WEB_POOL:EC2INSTANCES',
      'AWS:WEB_POOL:EKS',
      'AZURE:WEB_POOL:AKS',
      'GCP:WEB_POOL:GKE',
      'OCI:WEB_POOL:OKE',
    ];
    const ok = await create({ name: 'Scoped', scopes: { provider: { values: [...fixed, scope.id] } } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assertAdminError(
      await create({ name: 'Bad scope', scopes: { provider: { values: [dependency.id] } } }),
      400,
      'SERVICE_SPECIFICATION.UNKNOWN_SCOPE_SPECIFICATION',
    );
    assertAdminError(
      await create({ name: 'Bad scope', scopes: { provider: { values: ['00000000-0000-4000-8000-000000000000'] } } }),
      400,
      'SERVICE_SPECIFICATION.UNKNOWN_SCOPE_SPECIFICATION',
    );
  });

  it('lists by visibility with filters and paging', async () => {
    await create({ name: 'Org wide', visible_to: [nrn()] });
    await create({ name: 'Account 1', visible_to: [nrn(':account=1')] });
    await create({ name: 'Any account ns 5', visible_to: [nrn(':account=*:namespace=5')] });
    await create({ name: 'Scope thing', type: 'scope', visible_to: [nrn(':account=2')] });
    type Page = { paging: { total: number; offset: number; limit: number }; results: Array<{ name: string }> };
    const list = async (q: string): Promise<Page> =>
      (await env.t.request.get(`/service_specification?${q}`).set(...bearer(org.admin))).body as Page;
    const names = async (q: string): Promise<string[]> => (await list(q)).results.map((s) => s.name).sort();
    assert.deepEqual(await names(''), ['Account 1', 'Any account ns 5', 'Org wide', 'Scope thing']);
    assert.deepEqual(await names(`nrn=${nrn(':account=1:namespace=5')}`), ['Account 1', 'Any account ns 5', 'Org wide']);
    assert.deepEqual(await names(`nrn=${nrn(':account=2')}`), ['Org wide', 'Scope thing']);
    assert.deepEqual(await names('type=scope'), ['Scope thing']);
    assert.deepEqual(await names('name=ACCOUNT'), ['Account 1', 'Any account ns 5']);
    assert.deepEqual(await names('slug=org-wide'), ['Org wide']);
    const page = await list('limit=1&offset=1');
    assert.deepEqual(page.paging, { total: 4, offset: 1, limit: 1 });
    assert.equal(page.results.length, 1);
    assert.deepEqual((await list('offset=10')).paging, { total: 4, offset: 10, limit: 30 });
    assertAdminError(await env.t.request.get('/service_specification?nrn=bogus').set(...bearer(org.admin)), 400, 'validation_failed');
    const other = await newOrg(env);
    assertAdminError(
      await env.t.request.get(`/service_specification?nrn=${nrn()}`).set(...bearer(other.admin)),
      404,
      'ORGANIZATION.NOT_FOUND',
    );
    assert.deepEqual((await env.t.request.get('/service_specification').set(...bearer(other.admin))).body.results, []);
  });

  it('updates fields, regenerates default actions from the new schema, and deletes', async () => {
    const spec = (await create({})).body;
    const schema = { type: 'object', properties: { version: { type: 'string', enum: ['15', '16'] } } };
    const res = await patch(spec.id, {
      name: 'Renamed',
      attributes: { schema, values: { version: '16' } },
      selectors: { provider: 'aws' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.name, res.body.slug, res.body.selectors.provider, res.body.selectors.category],
      ['Renamed', 'postgres-db', 'aws', 'any'],
    );
    const actions = await env.t.request.get(`/service_specification/${spec.id}/action_specification`).set(...bearer(org.admin));
    assert.deepEqual(actions.body.results.find((a: { type: string }) => a.type === 'create').parameters, schema);
    assertAdminError(
      await patch(spec.id, { attributes: { schema, values: { version: '9' } } }),
      400,
      'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES',
    );
    assertAdminError(await patch(spec.id, { slug: 'mine' }), 400, 'validation_failed');
    assertAdminError(await patch(spec.id, {}), 400, 'validation_failed');
    assertAdminError(await patch(spec.id, { visible_to: ['organization=999999'] }), 400, 'SERVICE_SPECIFICATION.INVALID_VISIBILITY');
    const [row] = await env.db.query(`SELECT name, attributes FROM service_specifications WHERE id = $1`, [spec.id]);
    assert.equal(row.attributes.values.version, '16');
    assert.equal((await env.t.request.delete(`/service_specification/${spec.id}`).set(...bearer(org.admin))).status, 204);
    assertAdminError(
      await env.t.request.get(`/service_specification/${spec.id}`).set(...bearer(org.admin)),
      404,
      'SERVICE_SPECIFICATION.NOT_FOUND',
    );
  });

  it('refuses a package_id change while an instance is bound to a package revision, current or desired', async () => {
    const spec = (await create({ package_id: '11111111-1111-4111-8111-111111111111' })).body;
    assert.equal(spec.package_id, '11111111-1111-4111-8111-111111111111');
    const service = await env.t.request
      .post('/service')
      .set(...bearer(org.admin))
      .send({ specification_id: spec.id, entity_nrn: nrn(':account=1'), attributes: {} });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    for (const column of ['package_revision_id', 'desired_package_revision_id']) {
      await env.db.query(`UPDATE services SET package_revision_id = NULL, desired_package_revision_id = NULL WHERE id = $1`, [
        service.body.id,
      ]);
      await env.db.query(`UPDATE services SET ${column} = gen_random_uuid() WHERE id = $1`, [service.body.id]);
      assertAdminError(await patch(spec.id, { package_id: null }), 409, 'SERVICE_SPECIFICATION.PACKAGE_BOUND');
      assertAdminError(
        await patch(spec.id, { package_id: '22222222-2222-4222-8222-222222222222' }),
        409,
        'SERVICE_SPECIFICATION.PACKAGE_BOUND',
      );
      assert.equal((await patch(spec.id, { package_id: spec.package_id, name: 'Same package' })).status, 200);
    }
    await env.db.query(`UPDATE services SET package_revision_id = NULL, desired_package_revision_id = NULL WHERE id = $1`, [
      service.body.id,
    ]);
    const released = await patch(spec.id, { package_id: null });
    assert.equal(released.status, 200);
    assert.equal(released.body.package_id, null);
    assertAdminError(
      await env.t.request.delete(`/service_specification/${spec.id}`).set(...bearer(org.admin)),
      409,
      'SERVICE_SPECIFICATION.IN_USE',
    );
  });

  it('answers 403 without permission and 404 from another organization on every id route', async () => {
    const spec = (await create({})).body;
    const viewer = await userWithRole(env, org, 'viewer');
    assert.equal((await env.t.request.get(`/service_specification/${spec.id}`).set(...bearer(viewer.token))).status, 200);
    assertAdminError(await create({ name: 'x' }, viewer.token), 403, 'forbidden');
    assertAdminError(await patch(spec.id, { name: 'x' }, viewer.token), 403, 'forbidden');
    assertAdminError(await env.t.request.delete(`/service_specification/${spec.id}`).set(...bearer(viewer.token)), 403, 'forbidden');
    const other = await newOrg(env);
    const as = (req: { set(k: string, v: string): unknown }) => req.set(...bearer(other.admin));
    for (const res of await Promise.all([
      as(env.t.request.get(`/service_specification/${spec.id}`)),
      as(env.t.request.patch(`/service_specification/${spec.id}`).send({ name: 'x' })),
      as(env.t.request.delete(`/service_specification/${spec.id}`)),
      as(env.t.request.get(`/service_specification/${spec.id}/action_specification`)),
      as(env.t.request.post(`/service_specification/${spec.id}/action_specification`).send({ name: 'x' })),
    ])) {
      assertAdminError(res as never, 404, 'SERVICE_SPECIFICATION.NOT_FOUND');
    }
    assertAdminError(await create({ name: 'x' }, other.admin), 404, 'ORGANIZATION.NOT_FOUND');
    assert.equal(await specCount(), 1);
  });

  it('adds custom action specifications with validated schemas', async () => {
    const spec = (await create({})).body;
    const url = `/service_specification/${spec.id}/action_specification`;
    const ok = await env.t.request
      .post(url)
      .set(...bearer(org.admin))
      .send({ name: 'Restart now', parameters: { type: 'object', properties: { force: { type: 'boolean' } } } });
    assert.equal(ok.status, 201);
    assert.deepEqual([ok.body.slug, ok.body.type], ['restart-now', 'custom']);
    assertAdminError(
      await env.t.request
        .post(url)
        .set(...bearer(org.admin))
        .send({ name: 'Restart now' }),
      409,
      'ACTION_SPECIFICATION.SLUG_TAKEN',
    );
    assertAdminError(
      await env.t.request
        .post(url)
        .set(...bearer(org.admin))
        .send({ name: 'Bad', parameters: { type: 1 } }),
      400,
      'INVALID_JSON_SCHEMA',
    );
    assertAdminError(
      await env.t.request
        .post(url)
        .set(...bearer(org.admin))
        .send({ name: 'Bad', extra: 1 }),
      400,
      'validation_failed',
    );
    const one = await env.t.request.get(`${url}/${ok.body.id}`).set(...bearer(org.admin));
    assert.deepEqual(one.body, ok.body);
  });
});
