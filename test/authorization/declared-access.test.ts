/**
 * Routes declare what their permission is checked on (`access: { permission, on }`): the route
 * layer resolves the target before the handler runs and hands it the authorized row; a route
 * that declares a target its area gave no resolver for is refused at start-up; and every route
 * with a permission either declares its target or says why its handler checks by itself.
 */
import assert from 'node:assert/strict';
import Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import { createTokenVerifier } from '../../api/http/auth';
import { forbidden } from '../../api/http/errors';
import { defineRoute, mountRoutes, withAccessTargets, withDialect, type RouteDefinition } from '../../api/http/route';
import type { TargetResolver } from '../../api/access/targets';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { buildAreaRoutes } from '../../api/routes';
import { createTestApp } from '../support/app';
import { testDataSource } from '../support/database';
import { engineDeps } from './support';

function probe(): RouteDefinition {
  return defineRoute({
    method: 'get',
    path: '/workflows/probe-target/{id}',
    operationId: 'probeTarget',
    summary: 'Test probe: answers the target the route layer handed it.',
    tags: ['probe'],
    access: { permission: 'workflow:read', on: 'workflow' },
    params: Type.Object({ id: Type.String() }),
    responses: { 200: { description: 'The target' } },
    handler: ({ target }) => ({ status: 200, body: { id: target.id, name: target.name } }),
  });
}

describe('declared access', () => {
  it('hands the handler the row the resolver authorized, and answers the refusal it throws', async () => {
    const asked: Array<{ on: string; id: unknown; permission: string }> = [];
    const resolver: TargetResolver = (on, request) => {
      asked.push({ on, id: request.params.id, permission: request.permission });
      if (request.params.id === 'refused') return Promise.reject(forbidden());
      return Promise.resolve({ id: 'wf_1', name: 'Found' } as never);
    };
    const t = createTestApp({ routes: withAccessTargets(resolver, withDialect('problem', [probe()])) });
    const token = await t.token({ organizationId: '7' });
    const ok = await t.request.get('/workflows/probe-target/wf_1').set('Authorization', `Bearer ${token}`).expect(200);
    assert.deepEqual(ok.body, { id: 'wf_1', name: 'Found' });
    await t.request.get('/workflows/probe-target/refused').set('Authorization', `Bearer ${token}`).expect(403);
    assert.deepEqual(asked, [
      { on: 'workflow', id: 'wf_1', permission: 'workflow:read' },
      { on: 'workflow', id: 'refused', permission: 'workflow:read' },
    ]);
    // No token: refused before any target is read.
    await t.request.get('/workflows/probe-target/wf_1').expect(401);
    assert.equal(asked.length, 2);
  });

  it('refuses at start-up a route that declares a target its area gave no resolver for', () => {
    const options = {
      verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
      bodyLimitBytes: 1024,
      bodyMaxDepth: 64,
      replica: 'test',
    };
    assert.throws(
      () => mountRoutes(new Router(), [probe()], options),
      /declares access on workflow but its area stamped no target resolver/,
    );
  });

  it('every route with a permission declares its target or why its handler checks', async () => {
    const deps = engineDeps(await testDataSource());
    const routes = buildAreaRoutes(deps);
    const undeclared = routes
      .filter((route) => 'permission' in route.access && !('on' in route.access))
      .filter(
        (route) => !('inHandler' in route.access) || typeof route.access.inHandler !== 'string' || route.access.inHandler.trim() === '',
      )
      .map((route) => `${route.method} ${route.path}`);
    assert.deepEqual(undeclared, []);
    const engine = [...workflowRoutes(deps), ...executionRoutes(deps)];
    assert.ok(engine.every((route) => routes.some((r) => r.operationId === route.operationId)));
    const declared = engine.filter((route) => 'on' in route.access);
    assert.ok(declared.length >= 40, `only ${declared.length} engine routes declare their target`);
    for (const route of declared) assert.ok(route.targets, `${route.method} ${route.path}: no resolver stamped`);
  });
});
