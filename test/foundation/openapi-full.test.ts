import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import { createTokenVerifier } from '../../api/http/auth';
import { assertAccessDeclared, defineRoute, koaPath, mountRoutes, type RouteDefinition } from '../../api/http/route';
import Router from '@koa/router';
import { buildAreaRoutes } from '../../api/routes';
import { parseConfig } from '../../config/config';
import { testDataSource } from '../support/database';
import { captureLogger } from '../support/logger';

describe('OpenAPI document of the whole service', () => {
  it('is valid and lists every route the router answers, with every area mounted', async () => {
    const config = parseConfig({ PUBLIC_BASE_URL: 'http://api.test' });
    // A lazy connection never dials: building routes needs a client, not a server.
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const app = createApp({
      config,
      logger: captureLogger().logger,
      verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
      readiness: {},
      routes: buildAreaRoutes({ config, dataSource: await testDataSource(), temporal, encryptionKey: Buffer.alloc(32) }),
    });
    const document = app.openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    await SwaggerParser.validate(structuredClone(document) as never);

    const registered = new Set<string>();
    for (const layer of app.router.stack)
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) registered.add(`${method} ${layer.path}`);
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${koaPath(path)}`);
    }
    assert.deepEqual([...documented].sort(), [...registered].sort());
    for (const expected of [
      'POST /workflows/definitions',
      'POST /user/:id/grant',
      'GET /account',
      'PATCH /workflows/config/:id',
      'POST /service_specification',
    ]) {
      assert.ok(registered.has(expected), expected);
    }
  });

  it('has every route declare its access and its error dialect; the document shows the permission', async () => {
    const config = parseConfig({ PUBLIC_BASE_URL: 'http://api.test' });
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const routes = buildAreaRoutes({ config, dataSource: await testDataSource(), temporal, encryptionKey: Buffer.alloc(32) });
    for (const route of routes) {
      assert.doesNotThrow(() => assertAccessDeclared(route), route.operationId);
      assert.ok(route.dialect, `${route.operationId} has no error dialect`);
    }
    const byId = new Map(routes.map((route) => [route.operationId, route]));
    assert.deepEqual(byId.get('executeWorkflow')?.access, {
      permission: 'workflow:execute',
      inHandler: 'the workflow and the revision its alias or revision choice names, read with the grants in one statement',
    });
    assert.deepEqual(byId.get('getExecution')?.access, { permission: 'workflow:read', on: 'execution' });
    assert.equal(byId.get('listConfigEntries')?.dialect, 'config');
    assert.equal(byId.get('createAccount')?.dialect, 'admin');
    assert.ok('public' in (byId.get('webhook_post')?.access ?? {}), 'webhook ingress is public: its token is the capability');

    const app = createApp({
      config,
      logger: captureLogger().logger,
      verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
      readiness: {},
      routes,
    });
    const paths = (app.openApiDocument() as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
    assert.equal(paths['/workflows/definitions/{id}/execute'].post['x-permission'], 'workflow:execute');
    assert.deepEqual(paths['/health'].get.security, []);
  });

  it('refuses at start-up a route that names neither a permission nor why it is public', () => {
    const undeclared = {
      ...defineRoute({
        method: 'get',
        path: '/forgotten',
        operationId: 'forgotten',
        summary: 'A route whose author forgot its access rule.',
        tags: ['probe'],
        access: { public: 'placeholder' },
        responses: { 200: { description: 'ok' } },
        handler: () => ({ status: 200 }),
      }),
    } as RouteDefinition;
    for (const access of [undefined, { public: '  ' }, { permission: 'everything' }]) {
      const route = { ...undeclared, access } as unknown as RouteDefinition;
      assert.throws(
        () =>
          mountRoutes(new Router(), [route], {
            verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
            bodyLimitBytes: 1024,
            bodyMaxDepth: 64,
            replica: 'test',
          }),
        /declares no access/,
      );
    }
  });
});
