/**
 * Every write route is in the audit trail. The route declarations the service
 * mounts are enumerated: each one that is not a GET names its audit action or
 * why it records nothing (mounting one that does neither fails), and every
 * route naming an action has a scenario (write-scenarios.ts, keyed by
 * operationId) whose valid request records exactly one event of that action,
 * with the caller, the target and the request id.
 */
import assert from 'node:assert/strict';
import Router from '@koa/router';
import { consoleSessionRoutes } from '../../api/console/session-routes';
import { createTokenVerifier } from '../../api/http/auth';
import { defineRoute, mountRoutes, type RouteDefinition } from '../../api/http/route';
import { eventsOfRequest, newRequestId, useAuditEnv } from './support';
import { WRITE_SCENARIOS } from './write-scenarios';

/** The write routes that record nothing, each for the reason its declaration gives. */
const RECORDS_NOTHING = ['validateWorkflowDefinition', 'validateWorkflowDefinitionFor', 'signInToConsole', 'signOutOfConsole'];

describe('audit trail: every write route records its event', function () {
  this.timeout(120_000);
  const { env, org } = useAuditEnv();

  /** Every declaration the service mounts: the app's (operations and product areas) and the console's session routes. */
  const mounted = (): RouteDefinition[] => [
    ...env.t.app.routes,
    ...consoleSessionRoutes({ verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }), dataSource: env.db }),
  ];
  const audited = () => mounted().filter((route) => route.audit !== undefined && 'action' in route.audit);

  it('every route that is not a GET declares its audit action or why it records nothing', () => {
    const writes = mounted().filter((route) => route.method !== 'get');
    assert.ok(writes.length > 40, `found only ${writes.length} write routes`);
    const undeclared = writes.filter((route) => route.audit === undefined).map((route) => route.operationId);
    assert.deepEqual(undeclared, [], 'write routes without an audit declaration');
    const none = writes.filter((route) => route.audit !== undefined && 'none' in route.audit).map((route) => route.operationId);
    assert.deepEqual(none.sort(), [...RECORDS_NOTHING].sort(), 'write routes that record nothing (each says why)');
    for (const route of writes) if (route.audit && 'none' in route.audit) assert.ok(route.audit.none.trim().length > 10, route.operationId);
  });

  it('refuses at start-up a write route without an audit declaration (a GET may omit it)', () => {
    const route = (method: 'get' | 'post', audit?: unknown) =>
      ({
        ...defineRoute({
          method,
          path: '/forgotten',
          operationId: 'forgotten',
          summary: 'A write whose author forgot its audit declaration.',
          tags: ['probe'],
          access: { permission: 'workflow:write' },
          responses: { 200: { description: 'ok' } },
          handler: () => ({ status: 200 }),
        }),
        audit,
      }) as RouteDefinition;
    const options = {
      verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
      bodyLimitBytes: 1024,
      bodyMaxDepth: 64,
      replica: 'test',
    };
    for (const audit of [undefined, { none: ' ' }, { action: 'NotDotted' }, { action: 'a.b', also: ['Bad'] }]) {
      assert.throws(() => mountRoutes(new Router(), [route('post', audit)], options), /declares no audit/);
    }
    mountRoutes(new Router(), [route('get')], options);
    mountRoutes(new Router(), [route('post', { action: 'probe.write' })], options);
    mountRoutes(new Router(), [route('post', { none: 'a probe that writes nothing' })], options);
  });

  it('has one scenario for every route that declares an action, and none for routes that do not', () => {
    const declared = audited()
      .map((route) => route.operationId)
      .sort();
    assert.deepEqual(Object.keys(WRITE_SCENARIOS).sort(), declared, 'a new audited route needs its scenario (write-scenarios.ts)');
  });

  describe('one event per write', () => {
    for (const operationId of Object.keys(WRITE_SCENARIOS)) {
      it(operationId, async () => {
        const route = audited().find((r) => r.operationId === operationId);
        assert.ok(route?.audit && 'action' in route.audit, `${operationId} declares no audit action`);
        const requestId = newRequestId();
        const sent = await WRITE_SCENARIOS[operationId]({ env: env, org, write: (req) => req.set('X-Request-Id', requestId) });
        assert.equal(sent.res.headers['x-request-id'], requestId);
        const events = await eventsOfRequest(env.db, requestId);
        const actions = [route.audit.action, ...(route.audit.also ?? [])];
        assert.equal(events.length, 1, `${operationId}: ${JSON.stringify(events)}`);
        const [event] = events;
        assert.ok(actions.includes(event.action), `${event.action} is not declared by ${operationId}`);
        assert.equal(event.organization_id, org.id);
        const actor = sent.actor ?? { kind: 'user', id: org.userId };
        assert.deepEqual({ kind: event.actor_kind, id: event.actor_id }, actor);
        if (sent.targetId !== undefined) assert.equal(event.target_id, sent.targetId);
        assert.match(String(event.target_nrn), new RegExp(`^organization=${org.id}(:|$)`));
        assert.ok(event.replica.length > 0);
        if ('outcome' in event.details) assert.equal(event.details.outcome, 'succeeded', JSON.stringify(event.details));
      });
    }
  });
});
