import assert from 'node:assert/strict';
import { compileUserSchema } from '../../api/admin/user-schema';
import { PROVIDER_SEEDS } from '../../db/migrations/data/provider-specifications-v1';
import { assertAdminError, bearer, newOrg, useAdminApp, userWithRole } from './support';

describe('admin: provider specifications', () => {
  const { env, org } = useAdminApp();

  const settings = {
    type: 'object',
    groups: ['credentials'],
    properties: { token: { type: 'string', secret: true }, team: { type: 'string', tag: true } },
  };
  const create = (body: object, token = org.admin) =>
    env.t.request
      .post('/provider_specification')
      .set(...bearer(token))
      .send({ name: 'Acme Logs', schema: settings, visible_to: [`organization=${org.id}`], ...body });
  const count = async (): Promise<number> =>
    Number((await env.db.query(`SELECT count(*) AS n FROM provider_specifications WHERE organization_id = $1`, [org.id]))[0].n);

  it('creates with a category mapped to its record, custom keywords accepted, and a globally unique slug', async () => {
    const res = await create({
      category: 'logging',
      icon: 'https://example.com/i.svg',
      description: 'Logs',
      allow_dimensions: true,
      default_dimensions: { env: 'prod' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [category] = await env.db.query(`SELECT id FROM provider_categories WHERE slug = 'logging'`);
    assert.deepEqual(res.body.categories, [category.id]);
    assert.deepEqual(
      [res.body.organization_id, res.body.allow_dimensions, res.body.icon, res.body.tags, res.body.dependencies],
      [Number(org.id), true, 'https://example.com/i.svg', [], []],
    );
    assert.match(res.body.slug, /^acme-logs(-\d+)?$/);
    const second = await create({});
    assert.notEqual(second.body.slug, res.body.slug);
    assert.equal(second.body.allow_dimensions, false);
    const read = await env.t.request.get(`/provider_specification/${res.body.id}`).set(...bearer(org.admin));
    assert.deepEqual(read.body, res.body);
  });

  it('refuses bad custom keyword values, invalid schemas, unknown categories and properties', async () => {
    const bad: Array<[object, string]> = [
      [{ schema: { type: 'object', properties: { a: { type: 'string', secret: 'yes' } } } }, 'INVALID_JSON_SCHEMA'],
      [{ schema: { type: 'object', properties: { a: { type: 'string', tag: 1 } } } }, 'INVALID_JSON_SCHEMA'],
      [{ schema: { type: 'object', groups: 'main' } }, 'INVALID_JSON_SCHEMA'],
      [{ schema: { type: 'nope' } }, 'INVALID_JSON_SCHEMA'],
      [{ schema: { type: 'string', pattern: '(?!a)b' } }, 'INVALID_JSON_SCHEMA'],
      [{ category: 'databases' }, 'validation_failed'],
      [{ schema: 'x' }, 'validation_failed'],
      [{ visible_to: ['org=1'] }, 'validation_failed'],
      [{ slug: 'mine' }, 'validation_failed'],
      [{ tags: [] }, 'validation_failed'],
      [{ name: '' }, 'validation_failed'],
      [{ description: 'd'.repeat(2001) }, 'validation_failed'],
      [{ visible_to: ['organization=*'] }, 'PROVIDER_SPECIFICATION.INVALID_VISIBILITY'],
    ];
    for (const [body, code] of bad) assertAdminError(await create(body), 400, code);
    assert.equal(await count(), 0);
  });

  it('ships global specifications, including Oracle Cloud Infrastructure and Oracle Kubernetes Engine', async () => {
    const list = await env.t.request.get('/provider_specification?limit=100').set(...bearer(org.admin));
    assert.equal(list.status, 200);
    const globals = list.body.results.filter((p: { organization_id: number | null }) => p.organization_id === null);
    const [cloud] = await env.db.query(`SELECT id FROM provider_categories WHERE slug = 'cloud-providers'`);
    const [orchestration] = await env.db.query(`SELECT id FROM provider_categories WHERE slug = 'container-orchestration'`);
    const oci = globals.find((p: { slug: string }) => p.slug === 'oracle-cloud-infrastructure');
    const oke = globals.find((p: { slug: string }) => p.slug === 'oracle-kubernetes-engine');
    assert.deepEqual(oci.categories, [cloud.id]);
    assert.deepEqual(oke.categories, [orchestration.id]);
    assert.equal(oci.schema.properties.private_key.secret, true);
    assert.equal(oke.schema.properties.cluster_ocid.tag, true);
    assert.ok(Array.isArray(oke.schema.groups));
    const byCategory = await env.t.request.get('/provider_specification?category=container-orchestration').set(...bearer(org.admin));
    assert.ok(byCategory.body.results.every((p: { categories: string[] }) => p.categories.includes(orchestration.id)));
    assert.equal(
      (await env.t.request.get('/provider_specification?slug=oracle-kubernetes-engine').set(...bearer(org.admin))).body.paging.total,
      1,
    );

    // The shipped schemas compile with the same rules as user ones and validate real settings.
    for (const seed of PROVIDER_SEEDS) compileUserSchema(seed.schema, 'provider', seed.slug);
    const ocid = 'ocid1.tenancy.oc1..aaaaaaaaba3pv6wkcr4jqae5f15p2b2m2yt2j6rx32uzr4h25vqstifsfdsq';
    const validOci = {
      tenancy_ocid: ocid,
      user_ocid: ocid.replace('tenancy', 'user'),
      fingerprint: '12:34:56:78:90:ab:cd:ef:12:34:56:78:90:ab:cd:ef',
      private_key: '-----BEGIN PRIVATE KEY-----\nMII...\n-----END PRIVATE KEY-----',
      region: 'us-ashburn-1',
      compartment_ocid: ocid.replace('tenancy', 'compartment'),
    };
    const ociSchema = compileUserSchema(oci.schema, 'provider', 'oci');
    assert.deepEqual(ociSchema.validate(validOci), []);
    assert.notDeepEqual(ociSchema.validate({ ...validOci, region: 'Ashburn' }), []);
    const okeSchema = compileUserSchema(oke.schema, 'provider', 'oke');
    assert.deepEqual(
      okeSchema.validate({ ...validOci, cluster_ocid: ocid.replace('tenancy', 'cluster'), kubernetes_version: 'v1.30.1' }),
      [],
    );
    assert.notDeepEqual(okeSchema.validate(validOci), []);

    const global = await env.t.request.get(`/provider_specification/${oci.id}`).set(...bearer(org.admin));
    assert.equal(global.status, 200);
    assertAdminError(
      await env.t.request
        .patch(`/provider_specification/${oci.id}`)
        .set(...bearer(org.admin))
        .send({ name: 'Mine' }),
      403,
      'forbidden',
    );
    assertAdminError(await env.t.request.delete(`/provider_specification/${oci.id}`).set(...bearer(org.admin)), 403, 'forbidden');
  });

  it('updates and deletes; lists only global and own specifications', async () => {
    const spec = (await create({ category: 'logging' })).body;
    const res = await env.t.request
      .patch(`/provider_specification/${spec.id}`)
      .set(...bearer(org.admin))
      .send({ name: 'Renamed', category: 'metrics', description: 'New' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [metrics] = await env.db.query(`SELECT id FROM provider_categories WHERE slug = 'metrics'`);
    assert.deepEqual(
      [res.body.name, res.body.slug, res.body.description, res.body.categories],
      ['Renamed', spec.slug, 'New', [metrics.id]],
    );
    assertAdminError(
      await env.t.request
        .patch(`/provider_specification/${spec.id}`)
        .set(...bearer(org.admin))
        .send({ schema: { type: 'object', properties: { s: { secret: 'no' } } } }),
      400,
      'INVALID_JSON_SCHEMA',
    );
    assertAdminError(
      await env.t.request
        .patch(`/provider_specification/${spec.id}`)
        .set(...bearer(org.admin))
        .send({ organization_id: 5 }),
      400,
      'validation_failed',
    );
    const other = await newOrg(env);
    const otherSpec = (
      await env.t.request
        .post('/provider_specification')
        .set(...bearer(other.admin))
        .send({ name: 'Other', schema: {}, visible_to: [`organization=${other.id}`] })
    ).body;
    const mine = await env.t.request.get('/provider_specification?limit=200').set(...bearer(org.admin));
    const ids = mine.body.results.map((p: { id: string }) => p.id);
    assert.ok(ids.includes(spec.id));
    assert.ok(!ids.includes(otherSpec.id));
    assert.equal((await env.t.request.delete(`/provider_specification/${spec.id}`).set(...bearer(org.admin))).status, 204);
    assertAdminError(
      await env.t.request.get(`/provider_specification/${spec.id}`).set(...bearer(org.admin)),
      404,
      'PROVIDER_SPECIFICATION.NOT_FOUND',
    );
  });

  it('answers 403 without permission and 404 from another organization on every id route', async () => {
    const spec = (await create({})).body;
    const developer = await userWithRole(env, org, 'developer');
    assert.equal((await env.t.request.get(`/provider_specification/${spec.id}`).set(...bearer(developer.token))).status, 200);
    assertAdminError(await create({ name: 'x' }, developer.token), 403, 'forbidden');
    assertAdminError(
      await env.t.request
        .patch(`/provider_specification/${spec.id}`)
        .set(...bearer(developer.token))
        .send({ name: 'x' }),
      403,
      'forbidden',
    );
    const other = await newOrg(env);
    const auth = bearer(other.admin);
    for (const res of [
      await env.t.request.get(`/provider_specification/${spec.id}`).set(...auth),
      await env.t.request
        .patch(`/provider_specification/${spec.id}`)
        .set(...auth)
        .send({ name: 'x' }),
      await env.t.request.delete(`/provider_specification/${spec.id}`).set(...auth),
    ]) {
      assertAdminError(res, 404, 'PROVIDER_SPECIFICATION.NOT_FOUND');
    }
    assertAdminError(await create({ name: 'x' }, other.admin), 404, 'ORGANIZATION.NOT_FOUND');
    assert.equal(await count(), 1);
  });
});
