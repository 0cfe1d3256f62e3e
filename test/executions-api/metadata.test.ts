import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { executionRoutes } from '../../api/executions';
import { loadConfig } from '../../config/config';
import { ENGINE_VERSION, PLUGINS, describePlugin } from '../../workflows/engine';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { grantAdmin } from '../support/grants';
import { assertDialect } from '../support/dialects';

describe('executions API: engine metadata and plugin descriptors', () => {
  let t: TestApp;
  let token: string;

  before(async () => {
    // These routes never reach Temporal.
    const deps = { config: loadConfig(), dataSource: await testDataSource(), temporal: {} as Client, encryptionKey: randomBytes(32) };
    t = createTestApp({ routes: executionRoutes(deps) });
    const org = newOrganizationId();
    token = await t.token({ organizationId: org, userId: await grantAdmin(deps.dataSource, org) });
  });

  it('GET /workflows/metadata answers anonymously with the capabilities and the step-run cap', async () => {
    const res = await t.request.get('/workflows/metadata').expect(200);
    const names = Object.keys(PLUGINS).sort();
    assert.deepEqual(res.body, {
      apiVersion: res.body.apiVersion,
      pluginCount: names.length,
      supportedPluginTypes: names,
      maxNodeExecutions: 1000,
      topology: 'distributed',
      features: { rbac: true, multiOrg: true },
    });
    assert.equal(typeof res.body.apiVersion, 'string');
    assert.ok(names.includes('signal-wait') && names.includes('http-request') && names.includes('manual'));
  });

  it('GET /workflows/plugins lists descriptors, filtered by kind and text', async () => {
    const get = (query: Record<string, string> = {}) =>
      t.request.get('/workflows/plugins').set('Authorization', `Bearer ${token}`).query(query);
    const all = await get().expect(200);
    assert.equal(all.body.data.length, Object.keys(PLUGINS).length);
    const http = all.body.data.find((d: { name: string }) => d.name === 'http-request');
    assert.deepEqual(http, JSON.parse(JSON.stringify(describePlugin(PLUGINS['http-request']))));
    // Full descriptors: version, category, kind, execute mode, ports, config as JSON Schema, output schema, examples, documentation.
    for (const descriptor of all.body.data) {
      for (const key of [
        'version',
        'category',
        'kind',
        'executeMode',
        'inputPorts',
        'outputPorts',
        'outputSchema',
        'examples',
        'documentation',
      ])
        assert.ok(descriptor[key] !== undefined, `${descriptor.name} has ${key}`);
      assert.equal(descriptor.configSchema.type, 'object', descriptor.name);
      assert.equal(descriptor.source, 'built-in');
    }
    assert.equal(http.version, ENGINE_VERSION);
    // What each step outputs: every built-in declares it; a closed schema (http-request) is what publish checks reads against.
    for (const descriptor of all.body.data)
      assert.equal(typeof descriptor.outputSchema.properties, 'object', `${descriptor.name} declares its outputs`);
    assert.equal(http.outputSchema.additionalProperties, false);
    assert.deepEqual(Object.keys(http.outputSchema.properties), ['statusCode', 'statusText', 'headers', 'body']);
    assert.equal(http.outputSchema.properties.statusCode.type, 'integer');
    assert.match(http.outputSchema.properties.statusCode.description, /status code/);
    const code = all.body.data.find((d: { name: string }) => d.name === 'code-exec');
    assert.equal(code.outputSchema.additionalProperties, true, "code-exec's result is open-ended");
    assert.deepEqual(http.configSchema.required, ['url']);
    assert.deepEqual(http.configSchema.properties.body, {}, '`any` is a schema without a type');
    assert.deepEqual(http.configSchema.properties.timeout, { type: ['string', 'number'], format: 'duration' });
    const triggers = await get({ type: 'trigger' }).expect(200);
    assert.deepEqual(triggers.body.data.map((d: { name: string }) => d.name).sort(), [
      'cron',
      'execution-failed-trigger',
      'manual',
      'on-error',
      'webhook',
    ]);
    assert.deepEqual(
      (await get({ q: 'SIGNAL-W' })).body.data.map((d: { name: string }) => d.name),
      ['signal-wait'],
    );
    assert.deepEqual((await get({ type: 'trigger', q: 'signal-wait' })).body.data, []);
    assertDialect('problem', await get({ type: 'robot' }), 400);
    assert.equal((await t.request.get('/workflows/plugins')).status, 401);
  });

  it('GET /workflows/plugins/{name} returns one descriptor, 404 plugin-not-found otherwise', async () => {
    const res = await t.request.get('/workflows/plugins/signal-wait').set('Authorization', `Bearer ${token}`).expect(200);
    assert.deepEqual(res.body, JSON.parse(JSON.stringify(describePlugin(PLUGINS['signal-wait']))));
    for (const name of ['slack', 'constructor', '__proto__']) {
      const miss = await t.request.get(`/workflows/plugins/${name}`).set('Authorization', `Bearer ${token}`);
      assertDialect('problem', miss, 404);
      assert.match(miss.body.type, /\/plugin-not-found$/);
    }
  });
});
