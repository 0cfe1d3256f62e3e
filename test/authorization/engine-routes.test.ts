/**
 * Every engine route × every kind of caller. The table names each route's call and
 * who may make it; a route added to the engine without a row here fails the first
 * test, so no route ships unchecked.
 *
 * Callers: `admin`, `developer` and `viewer` hold that catalog role on the
 * organization; `none` is a user of the organization with no grant; `other` is an
 * admin of another organization. Denied inside the organization: 403 in the
 * route's dialect; no grant in the organization: the route's 404.
 */
import assert from 'node:assert/strict';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { needsToken } from '../../api/http/route';
import { testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { definition, engineAuthz, engineDeps, fixture, type EngineEnv, type EngineOrg, type Fixture } from './support';

type Caller = keyof EngineOrg['as'];
const READERS: Caller[] = ['admin', 'developer', 'viewer'];
const WRITERS: Caller[] = ['admin', 'developer'];
const CONFIG_WRITERS: Caller[] = ['admin'];
const CALLERS_ALL: Caller[] = ['other', 'none', 'viewer', 'developer', 'admin'];

interface Row {
  call: (f: Fixture) => { url: string; body?: unknown };
  /** The status of an allowed caller on the fixture; a list: of the first allowed caller, then of the next (an organization-wide setting created once, then replaced). */
  ok: number | number[];
  allowed: Caller[];
  dialect?: 'problem' | 'config';
  /**
   * Routes on the caller's organization as a whole (lists, create, plugins) answer an admin of
   * another organization about that organization (this status), never about ours; default 404.
   */
  other?: number;
}

const TABLE: Record<string, Row> = {
  'post /workflows/definitions': {
    call: (f) => ({ url: '/workflows/definitions', body: definition(`${f.key}-new`) }),
    ok: 201,
    allowed: WRITERS,
    other: 201,
  },
  'put /workflows/definitions/{id}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}`, body: definition(f.key, { name: 'Renamed' }) }),
    ok: 200,
    allowed: WRITERS,
    other: 201,
  },
  'post /workflows/definitions/validate': {
    call: (f) => ({ url: '/workflows/definitions/validate', body: definition(f.key) }),
    ok: 200,
    allowed: READERS,
    other: 200,
  },
  'post /workflows/definitions/{id}/validate': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/validate`, body: definition(f.key) }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/definitions': { call: () => ({ url: '/workflows/definitions' }), ok: 200, allowed: READERS, other: 200 },
  'get /workflows/definitions/{id}': { call: (f) => ({ url: `/workflows/definitions/${f.workflowId}` }), ok: 200, allowed: READERS },
  'patch /workflows/definitions/{id}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}`, body: { name: 'Patched' } }),
    ok: 200,
    allowed: WRITERS,
  },
  'delete /workflows/definitions/{id}': { call: (f) => ({ url: `/workflows/definitions/${f.key}` }), ok: 204, allowed: WRITERS },
  'get /workflows/definitions/{id}/revisions': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/revisions` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/definitions/{id}/revisions/{n}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/revisions/1` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/definitions/{id}/revisions/{n}/source': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/revisions/1/source` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/definitions/{id}/aliases': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/definitions/{id}/aliases/{alias}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases/prod` }),
    ok: 200,
    allowed: READERS,
  },
  'put /workflows/definitions/{id}/aliases/{alias}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases/prod`, body: { revision: 1, metadata: { by: 'test' } } }),
    ok: 200,
    allowed: WRITERS,
  },
  'post /workflows/definitions/{id}/aliases': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases`, body: { name: 'canary', revision: 1 } }),
    ok: 201,
    allowed: WRITERS,
  },
  'post /workflows/definitions/{id}/aliases/{alias}/activate': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases/prod/activate`, body: {} }),
    ok: 200,
    allowed: WRITERS,
  },
  'post /workflows/definitions/{id}/aliases/{alias}/deactivate': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases/prod/deactivate`, body: {} }),
    ok: 200,
    allowed: WRITERS,
  },
  'delete /workflows/definitions/{id}/aliases/{alias}': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/aliases/prod` }),
    ok: 204,
    allowed: WRITERS,
  },
  'get /workflows/triggers': { call: (f) => ({ url: `/workflows/triggers?workflowId=${f.key}` }), ok: 200, allowed: READERS, other: 200 },
  'post /workflows/config': {
    call: (f) => ({ url: '/workflows/config', body: { name: 'ENDPOINT', value: 'https://x', workflow: f.key } }),
    ok: 201,
    allowed: CONFIG_WRITERS,
    dialect: 'config',
  },
  'get /workflows/config': { call: (f) => ({ url: `/workflows/config?workflow=${f.key}` }), ok: 200, allowed: READERS, dialect: 'config' },
  'get /workflows/config/{id}': { call: (f) => ({ url: `/workflows/config/${f.configId}` }), ok: 200, allowed: READERS, dialect: 'config' },
  'patch /workflows/config/{id}': {
    call: (f) => ({ url: `/workflows/config/${f.configId}`, body: { value: 'us' } }),
    ok: 200,
    allowed: CONFIG_WRITERS,
    dialect: 'config',
  },
  'delete /workflows/config/{id}': {
    call: (f) => ({ url: `/workflows/config/${f.configId}` }),
    ok: 204,
    allowed: CONFIG_WRITERS,
    dialect: 'config',
  },
  // Temporal refuses starts in this suite: 503 means the caller got past authorization.
  'post /workflows/definitions/{id}/execute': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/execute`, body: {} }),
    ok: 503,
    allowed: WRITERS,
  },
  'get /workflows/executions': {
    call: (f) => ({ url: `/workflows/executions?workflowId=${f.key}` }),
    ok: 200,
    allowed: READERS,
    other: 200,
  },
  'get /workflows/executions/stats': { call: () => ({ url: '/workflows/executions/stats' }), ok: 200, allowed: READERS, other: 200 },
  'get /workflows/executions/{id}': { call: (f) => ({ url: `/workflows/executions/${f.executionId}` }), ok: 200, allowed: READERS },
  'get /workflows/executions/{id}/state': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/state` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/executions/{id}/steps': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/steps` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/executions/{id}/steps/{stepId}': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/steps/work` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/executions/{id}/pending-signals': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/pending-signals` }),
    ok: 200,
    allowed: READERS,
  },
  // The fixture's execution has finished: an allowed cancel, terminate or signal answers 409.
  'post /workflows/executions/{id}/cancel': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/cancel`, body: {} }),
    ok: 409,
    allowed: WRITERS,
  },
  'post /workflows/executions/{id}/terminate': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/terminate`, body: {} }),
    ok: 409,
    allowed: WRITERS,
  },
  // A re-run starts a new execution: 503 here, as execute (no Temporal); a retry of a completed run answers 409.
  'post /workflows/executions/{id}/rerun': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/rerun` }),
    ok: 503,
    allowed: WRITERS,
  },
  'post /workflows/executions/{id}/retry': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/retry` }),
    ok: 409,
    allowed: WRITERS,
  },
  'post /workflows/executions/{id}/signals/{name}': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/signals/approve`, body: {} }),
    ok: 409,
    allowed: WRITERS,
  },
  'post /workflows/signals/{name}': {
    // Nobody waits: `startIfNotWaiting: false` keeps it a delivery (409), not a signal-with-start.
    call: (f) => ({ url: '/workflows/signals/approve', body: { correlationKey: 'k', workflowId: f.key, startIfNotWaiting: false } }),
    ok: 409,
    allowed: WRITERS,
    other: 409,
  },
  // Every caller may ask: the list holds only the waits the caller may answer (empty here, nothing declares an answer).
  'get /workflows/approvals': { call: () => ({ url: '/workflows/approvals' }), ok: 200, allowed: CALLERS_ALL, other: 200 },
  'get /workflows/executions/{id}/logs': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/logs` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/executions/{id}/events': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/events` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/executions/{id}/export': {
    call: (f) => ({ url: `/workflows/executions/${f.executionId}/export` }),
    ok: 200,
    allowed: READERS,
  },
  'get /workflows/retention': { call: () => ({ url: '/workflows/retention' }), ok: 200, allowed: READERS, other: 200 },
  'put /workflows/retention': {
    call: () => ({ url: '/workflows/retention', body: { retentionDays: 90 } }),
    ok: [201, 200],
    allowed: WRITERS,
    other: 201,
  },
  'delete /workflows/retention': { call: () => ({ url: '/workflows/retention' }), ok: 204, allowed: WRITERS, other: 204 },
  'get /workflows/definitions/{id}/retention': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/retention` }),
    ok: 200,
    allowed: READERS,
  },
  'put /workflows/definitions/{id}/retention': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/retention`, body: { retentionDays: 7 } }),
    ok: 201,
    allowed: WRITERS,
  },
  'delete /workflows/definitions/{id}/retention': {
    call: (f) => ({ url: `/workflows/definitions/${f.key}/retention` }),
    ok: 204,
    allowed: WRITERS,
  },
  'get /workflows/plugins': { call: () => ({ url: '/workflows/plugins' }), ok: 200, allowed: READERS, other: 200 },
  'get /workflows/plugins/{name}': { call: () => ({ url: '/workflows/plugins/log' }), ok: 200, allowed: READERS, other: 200 },
};

const CALLERS: Caller[] = ['other', 'none', 'viewer', 'developer', 'admin'];

describe('engine authorization: every route × every caller', function () {
  this.timeout(120_000);
  let env: EngineEnv;
  let org: EngineOrg;
  before(async () => {
    ({ env, org } = await engineAuthz());
  });

  it('has a row for every engine route that needs a token (a new route without one fails here)', async () => {
    const deps = engineDeps(await testDataSource());
    const routes = [...workflowRoutes(deps), ...executionRoutes(deps)].filter(needsToken);
    assert.deepEqual(Object.keys(TABLE).sort(), routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  for (const [route, row] of Object.entries(TABLE)) {
    it(route, async () => {
      const method = route.split(' ')[0] as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const dialect = row.dialect ?? 'problem';
      let allowedCalls = 0;
      for (const caller of CALLERS) {
        // A fresh fixture per call: an allowed write (delete, rename) must not change what the next caller meets.
        const f = await fixture(env, org);
        const { url, body } = row.call(f);
        let req = env.t.request[method](url).set('Authorization', org.as[caller]);
        if (body !== undefined) req = req.send(body as object);
        const res = await req;
        const ok = Array.isArray(row.ok) ? row.ok[Math.min(allowedCalls, row.ok.length - 1)] : row.ok;
        if (row.allowed.includes(caller)) allowedCalls += 1;
        const expected = row.allowed.includes(caller) ? ok : caller === 'other' ? (row.other ?? 404) : caller === 'none' ? 404 : 403;
        assert.equal(res.status, expected, `${caller}: ${route} answered ${res.status} ${res.text.slice(0, 300)}`);
        // Another organization learns nothing of ours beyond what its own request named.
        if (caller === 'other') {
          for (const id of [f.workflowId, f.executionId, f.configId].filter((id) => !url.includes(id))) {
            assert.ok(!res.text.includes(id), `${route} leaks ${id}`);
          }
        }
        if (expected === 403 || expected === 404) assertDialect(dialect, res, expected);
        if (expected === 403 && dialect === 'config') assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message']);
        if (expected === 403) assert.equal(dialect === 'config' ? res.body.error : res.body.type.split('/').pop(), 'forbidden');
      }
    });
  }
});
