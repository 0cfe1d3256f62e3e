/**
 * One valid request per audited write route, keyed by operationId: each
 * scenario prepares what its route needs (with requests of their own), then
 * sends the request under test through `write` (which stamps the request id
 * the test looks its event up by). write-routes.test.ts fails when a route
 * that declares an audit action has no row here.
 */
import assert from 'node:assert/strict';
import type supertest from 'supertest';
import type { Response } from 'supertest';
import type { AuditEnv, AuditOrg } from './support';
import { executionWhere } from './support';

export interface Scenario {
  env: AuditEnv;
  org: AuditOrg;
  /** Sends the request under test. */
  write: (req: supertest.Test) => supertest.Test;
}

/** What the request under test answered, and what its event must name (default: the caller as actor). */
export interface Sent {
  res: Response;
  targetId?: string;
  actor?: { kind: string; id: string };
}

type Row = (s: Scenario) => Promise<Sent>;

const ok = (res: Response, status: number): Response => {
  assert.equal(res.status, status, `${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

// ── administration ──────────────────────────────────────────────────────────
const userOf = async ({ env, org }: Scenario, type = 'person') => {
  const id = Math.floor(Math.random() * 1e9) + 1;
  ok(await org.as(env.t.request.post('/user')).send({ id, organization_id: Number(org.id), type }), 201);
  return id;
};
const grantOf = async (s: Scenario, role: string) => {
  const user = await userOf(s);
  const res = ok(
    await s.org.as(s.env.t.request.post(`/user/${user}/grant`)).send([{ nrn: `organization=${s.org.id}`, role_slug: role }]),
    201,
  );
  return { user, grant: res.body[0].id as number };
};
const apiKeyOf = async ({ env, org }: Scenario) =>
  ok(
    await org
      .as(env.t.request.post('/api_key'))
      .send({ name: 'audit key', grants: [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }] }),
    201,
  ).body.id as number;
const accountOf = async ({ env, org }: Scenario) =>
  ok(await org.as(env.t.request.post('/account')).send({ name: 'Audit account', organization_id: Number(org.id) }), 201).body.id as number;
const serviceSpecOf = async ({ env, org }: Scenario) =>
  ok(await org.as(env.t.request.post('/service_specification')).send({ name: 'Audit spec', visible_to: [`organization=${org.id}`] }), 201)
    .body.id as string;
const providerSpecOf = async ({ env, org }: Scenario) =>
  ok(
    await org
      .as(env.t.request.post('/provider_specification'))
      .send({ name: 'Audit provider', schema: {}, visible_to: [`organization=${org.id}`] }),
    201,
  ).body.id as string;
const serviceOf = async (s: Scenario) => {
  const spec = await serviceSpecOf(s);
  const res = await s.org
    .as(s.env.t.request.post('/service'))
    .send({ specification_id: spec, entity_nrn: `organization=${s.org.id}:account=1`, attributes: {} });
  return { spec, service: ok(res, 201).body.id as string };
};
const createActionSpecOf = async (s: Scenario, spec: string) => {
  const res = ok(await s.org.as(s.env.t.request.get(`/service_specification/${spec}/action_specification`)), 200);
  return (res.body.results as Array<{ id: string; type: string }>).find((a) => a.type === 'create')!.id;
};

// ── workflows ───────────────────────────────────────────────────────────────
const HOOK_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'];
let counter = 0;
const newKey = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const logDefinition = (key: string, extra: Record<string, unknown> = {}) => ({
  name: 'Audited',
  key,
  steps: { start: { type: 'trigger', pluginType: 'manual' }, note: { type: 'module', pluginType: 'log', config: { message: 'hi' } } },
  connections: [{ from: 'start', to: 'note' }],
  ...extra,
});
/** start ──▶ approval (signal-wait `approve`, optionally under a correlation key) */
const waitDefinition = (key: string, correlated = false) => ({
  name: 'Waits',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: {
      type: 'wait',
      pluginType: 'signal-wait',
      config: { signalName: 'approve', timeout: '2d', ...(correlated ? { correlationKey: 'order:${{ trigger.payload.order }}' } : {}) },
    },
  },
  connections: [{ from: 'start', to: 'approval' }],
});
/** hook (webhook, every method) ──▶ note */
const hookDefinition = (key: string) => ({
  name: 'Hooked',
  key,
  steps: {
    hook: { type: 'trigger', pluginType: 'webhook', config: { mode: 'start', methods: HOOK_METHODS } },
    note: { type: 'module', pluginType: 'log', config: { message: 'hooked' } },
  },
  connections: [{ from: 'hook', to: 'note' }],
});
/** start ──▶ callback (webhook-wait, optionally with a URL prefix) */
const callbackDefinition = (key: string, urlPrefix?: string) => ({
  name: 'Calls back',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    callback: { type: 'module', pluginType: 'webhook-wait', config: { timeout: '1h', ...(urlPrefix ? { urlPrefix } : {}) } },
  },
  connections: [{ from: 'start', to: 'callback' }],
});

const publishOf = async ({ env, org }: Scenario, definition: Record<string, unknown>) =>
  ok(await org.as(env.t.request.post('/workflows/definitions')).send(definition), 201).body.workflow.id as string;
const aliasOf = async (s: Scenario, workflowId: string, name = 'stable') =>
  ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${workflowId}/aliases`)).send({ name, revision: 1 }), 201);
const activated = async (s: Scenario, workflowId: string) =>
  ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`)), 200);
const configOf = async ({ env, org }: Scenario) =>
  ok(await org.as(env.t.request.post('/workflows/config')).send({ name: 'REGION', value: 'eu', path: '/' }), 201).body.id as string;

/** An execution waiting on its signal-wait step. */
const waitingExecution = async (s: Scenario, correlated = false, inputs: Record<string, unknown> = {}) => {
  const key = newKey('waits');
  await publishOf(s, waitDefinition(key, correlated));
  const res = ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${key}/execute`)).send({ inputs }), 202);
  const id = res.body.executionId as string;
  await executionWhere(s.env, s.org, id, (body) => body.status === 'waiting');
  return { id, key };
};
/** The path of a waiting webhook-wait step's one-time callback URL. */
const callbackPath = async (s: Scenario, urlPrefix?: string) => {
  const key = newKey('calls');
  await publishOf(s, callbackDefinition(key, urlPrefix));
  const id = ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${key}/execute`)).send({}), 202).body.executionId as string;
  const pending = await executionWhere(
    s.env,
    s.org,
    id,
    (body) => Boolean((body.data as Array<{ callbackUrl?: string }>)?.[0]?.callbackUrl),
    '/pending-signals',
  );
  return { id, path: new URL((pending.data as Array<{ callbackUrl: string }>)[0].callbackUrl).pathname };
};
/** The path of a live webhook trigger that takes every method. */
const webhookPath = async (s: Scenario) => {
  const workflowId = await publishOf(s, hookDefinition(newKey('hooked')));
  await activated(s, workflowId);
  const aliases = ok(await s.org.as(s.env.t.request.get(`/workflows/definitions/${workflowId}/aliases`)), 200);
  const url = aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string;
  return { workflowId, path: new URL(url).pathname };
};

const webhookRow =
  (method: 'post' | 'put' | 'patch' | 'delete' | 'get'): Row =>
  async (s) => {
    const { workflowId, path } = await webhookPath(s);
    const req = s.write(s.env.t.request[method](path));
    const res = ok(method === 'get' ? await req : await req.send({ event: 'push' }), 202);
    return { res, actor: { kind: 'webhook', id: `${workflowId}/hook` } };
  };
const callbackRow =
  (method: 'post' | 'put' | 'patch' | 'delete' | 'get', urlPrefix?: string): Row =>
  async (s) => {
    const { id, path } = await callbackPath(s, urlPrefix);
    const req = s.write(s.env.t.request[method](path));
    const res = ok(method === 'get' ? await req : await req.send({ status: 'approved' }), 202);
    return { res, targetId: id, actor: { kind: 'webhook', id: `callback:${id}` } };
  };

export const WRITE_SCENARIOS: Record<string, Row> = {
  // Administration.
  createApiKey: async (s) => {
    const res = ok(
      await s
        .write(s.org.as(s.env.t.request.post('/api_key')))
        .send({ name: 'audited', grants: [{ nrn: `organization=${s.org.id}`, role_slug: 'viewer' }] }),
      201,
    );
    return { res, targetId: String(res.body.id) };
  },
  updateApiKey: async (s) => {
    const id = await apiKeyOf(s);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.patch(`/api_key/${id}`))).send({ name: 'renamed' }), 200),
      targetId: String(id),
    };
  },
  deleteApiKey: async (s) => {
    const id = await apiKeyOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/api_key/${id}`))), 204), targetId: String(id) };
  },
  createUser: async (s) => {
    const res = ok(await s.write(s.org.as(s.env.t.request.post('/user'))).send({ id: 424242, organization_id: Number(s.org.id) }), 201);
    return { res, targetId: '424242' };
  },
  createUserGrants: async (s) => {
    const user = await userOf(s);
    const res = ok(
      await s.write(s.org.as(s.env.t.request.post(`/user/${user}/grant`))).send([{ nrn: `organization=${s.org.id}`, role_slug: 'viewer' }]),
      201,
    );
    return { res, targetId: String(res.body[0].id) };
  },
  deleteUserGrant: async (s) => {
    const { user, grant } = await grantOf(s, 'viewer');
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/user/${user}/grant/${grant}`))), 204), targetId: String(grant) };
  },
  approveUserGrant: async (s) => {
    const { user, grant } = await grantOf(s, 'secops');
    return { res: ok(await s.write(s.org.as(s.env.t.request.post(`/user/${user}/grant/${grant}/approve`))), 200), targetId: String(grant) };
  },
  createAccount: async (s) => {
    const res = ok(
      await s.write(s.org.as(s.env.t.request.post('/account'))).send({ name: 'Payments', organization_id: Number(s.org.id) }),
      201,
    );
    return { res, targetId: String(res.body.id) };
  },
  updateAccount: async (s) => {
    const id = await accountOf(s);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.patch(`/account/${id}`))).send({ name: 'Renamed' }), 200),
      targetId: String(id),
    };
  },
  deleteAccount: async (s) => {
    const id = await accountOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/account/${id}`))), 204), targetId: String(id) };
  },
  createServiceSpecification: async (s) => {
    const res = ok(
      await s
        .write(s.org.as(s.env.t.request.post('/service_specification')))
        .send({ name: 'Queue', visible_to: [`organization=${s.org.id}`] }),
      201,
    );
    return { res, targetId: res.body.id };
  },
  updateServiceSpecification: async (s) => {
    const id = await serviceSpecOf(s);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.patch(`/service_specification/${id}`))).send({ name: 'Renamed' }), 200),
      targetId: id,
    };
  },
  deleteServiceSpecification: async (s) => {
    const id = await serviceSpecOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/service_specification/${id}`))), 204), targetId: id };
  },
  createActionSpecification: async (s) => {
    const spec = await serviceSpecOf(s);
    const res = ok(
      await s.write(s.org.as(s.env.t.request.post(`/service_specification/${spec}/action_specification`))).send({ name: 'Restart' }),
      201,
    );
    return { res, targetId: res.body.id };
  },
  createProviderSpecification: async (s) => {
    const res = ok(
      await s
        .write(s.org.as(s.env.t.request.post('/provider_specification')))
        .send({ name: 'Logs', schema: {}, visible_to: [`organization=${s.org.id}`] }),
      201,
    );
    return { res, targetId: res.body.id };
  },
  updateProviderSpecification: async (s) => {
    const id = await providerSpecOf(s);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.patch(`/provider_specification/${id}`))).send({ name: 'Renamed' }), 200),
      targetId: id,
    };
  },
  deleteProviderSpecification: async (s) => {
    const id = await providerSpecOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/provider_specification/${id}`))), 204), targetId: id };
  },
  createService: async (s) => {
    const spec = await serviceSpecOf(s);
    const res = ok(
      await s
        .write(s.org.as(s.env.t.request.post('/service')))
        .send({ specification_id: spec, entity_nrn: `organization=${s.org.id}:account=1`, attributes: {} }),
      201,
    );
    return { res, targetId: res.body.id };
  },
  createServiceAction: async (s) => {
    const { spec, service } = await serviceOf(s);
    const specification_id = await createActionSpecOf(s, spec);
    const res = ok(await s.write(s.org.as(s.env.t.request.post(`/service/${service}/action`))).send({ specification_id }), 201);
    return { res, targetId: res.body.id };
  },
  updateServiceAction: async (s) => {
    const { spec, service } = await serviceOf(s);
    const specification_id = await createActionSpecOf(s, spec);
    const action = ok(await s.org.as(s.env.t.request.post(`/service/${service}/action`)).send({ specification_id }), 201).body.id as string;
    const res = ok(
      await s.write(s.org.as(s.env.t.request.patch(`/service/${service}/action/${action}`))).send({ status: 'in_progress' }),
      200,
    );
    return { res, targetId: action };
  },

  // Workflow definitions, aliases and activation, config entries.
  createWorkflowDefinition: async (s) => {
    const res = ok(await s.write(s.org.as(s.env.t.request.post('/workflows/definitions'))).send(logDefinition(newKey('created'))), 201);
    return { res, targetId: res.body.workflow.id };
  },
  upsertWorkflowDefinition: async (s) => {
    const key = newKey('upserted');
    const id = await publishOf(s, logDefinition(key));
    const res = ok(
      await s.write(s.org.as(s.env.t.request.put(`/workflows/definitions/${key}`))).send(logDefinition(key, { description: 'v2' })),
      200,
    );
    return { res, targetId: id };
  },
  patchWorkflowDefinition: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('patched')));
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.patch(`/workflows/definitions/${id}`))).send({ name: 'Renamed' }), 200),
      targetId: id,
    };
  },
  deleteWorkflowDefinition: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('deleted')));
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/workflows/definitions/${id}`))), 204), targetId: id };
  },
  putWorkflowAlias: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('aliased')));
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.put(`/workflows/definitions/${id}/aliases/stable`))).send({ revision: 1 }), 201),
      targetId: id,
    };
  },
  createWorkflowAlias: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('aliased')));
    return {
      res: ok(
        await s.write(s.org.as(s.env.t.request.post(`/workflows/definitions/${id}/aliases`))).send({ name: 'stable', revision: 1 }),
        201,
      ),
      targetId: id,
    };
  },
  activateWorkflowAlias: async (s) => {
    const id = await publishOf(s, hookDefinition(newKey('activated')));
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/definitions/${id}/aliases/latest/activate`))), 200),
      targetId: id,
    };
  },
  deactivateWorkflowAlias: async (s) => {
    const id = await publishOf(s, hookDefinition(newKey('deactivated')));
    await activated(s, id);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/definitions/${id}/aliases/latest/deactivate`))), 200),
      targetId: id,
    };
  },
  deleteWorkflowAlias: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('unaliased')));
    await aliasOf(s, id);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/workflows/definitions/${id}/aliases/stable`))), 204), targetId: id };
  },
  putOrganizationRetention: async (s) => ({
    res: ok(await s.write(s.org.as(s.env.t.request.put('/workflows/retention'))).send({ retentionDays: 90 }), 201),
    targetId: s.org.id,
  }),
  deleteOrganizationRetention: async (s) => ({
    res: ok(await s.write(s.org.as(s.env.t.request.delete('/workflows/retention'))), 204),
    targetId: s.org.id,
  }),
  putWorkflowRetention: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('retained')));
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.put(`/workflows/definitions/${id}/retention`))).send({ retentionDays: 7 }), 201),
      targetId: id,
    };
  },
  deleteWorkflowRetention: async (s) => {
    const id = await publishOf(s, logDefinition(newKey('unretained')));
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/workflows/definitions/${id}/retention`))), 204), targetId: id };
  },
  upsertConfigEntry: async (s) => {
    const res = ok(
      await s.write(s.org.as(s.env.t.request.post('/workflows/config'))).send({ name: 'TOKEN', value: 'v', secret: true, path: '/' }),
      201,
    );
    return { res, targetId: res.body.id };
  },
  rotateConfigEntry: async (s) => {
    const id = await configOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.patch(`/workflows/config/${id}`))).send({ value: 'us' }), 200), targetId: id };
  },
  deleteConfigEntry: async (s) => {
    const id = await configOf(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.delete(`/workflows/config/${id}`))), 204), targetId: id };
  },

  // Executions: start, cancel, terminate, signals, webhook ingress and callbacks.
  executeWorkflow: async (s) => {
    const key = newKey('executed');
    await publishOf(s, logDefinition(key));
    const res = ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/definitions/${key}/execute`))).send({}), 202);
    return { res, targetId: res.body.executionId };
  },
  rerunExecution: async (s) => {
    const key = newKey('rerun');
    await publishOf(s, logDefinition(key));
    const first = ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${key}/execute`)).send({}), 202).body
      .executionId as string;
    const res = ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/executions/${first}/rerun`))), 202);
    return { res, targetId: res.body.executionId };
  },
  retryExecution: async (s) => {
    const key = newKey('retried');
    await publishOf(
      s,
      logDefinition(key, {
        steps: {
          start: { type: 'trigger', pluginType: 'manual' },
          note: { type: 'module', pluginType: 'fail', config: { message: 'no' } },
        },
      }),
    );
    const first = ok(await s.org.as(s.env.t.request.post(`/workflows/definitions/${key}/execute`)).send({}), 202).body
      .executionId as string;
    await executionWhere(s.env, s.org, first, (body) => body.status === 'failed');
    const res = ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/executions/${first}/retry`))), 202);
    return { res, targetId: res.body.executionId };
  },
  cancelExecution: async (s) => {
    const { id } = await waitingExecution(s);
    return {
      res: ok(
        await s.write(s.org.as(s.env.t.request.post(`/workflows/executions/${id}/cancel`))).send({ reason: 'no longer needed' }),
        202,
      ),
      targetId: id,
    };
  },
  terminateExecution: async (s) => {
    const { id } = await waitingExecution(s);
    return { res: ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/executions/${id}/terminate`))).send({}), 200), targetId: id };
  },
  signalExecution: async (s) => {
    const { id } = await waitingExecution(s);
    return {
      res: ok(await s.write(s.org.as(s.env.t.request.post(`/workflows/executions/${id}/signals/approve`))).send({ by: 'ada' }), 200),
      targetId: id,
    };
  },
  signalByCorrelationKey: async (s) => {
    const { key } = await waitingExecution(s, true, { order: 'B' });
    const res = ok(
      await s.write(s.org.as(s.env.t.request.post('/workflows/signals/approve'))).send({ correlationKey: 'order:B', workflowId: key }),
      200,
    );
    return { res };
  },
  webhook_post: webhookRow('post'),
  webhook_put: webhookRow('put'),
  webhook_patch: webhookRow('patch'),
  webhook_delete: webhookRow('delete'),
  webhook_get: webhookRow('get'),
  webhookCallback_post: callbackRow('post'),
  webhookCallback_put: callbackRow('put'),
  webhookCallback_patch: callbackRow('patch'),
  webhookCallback_delete: callbackRow('delete'),
  webhookCallback_get: callbackRow('get'),
  webhookCallbackPrefixed_post: callbackRow('post', 'approvals'),
  webhookCallbackPrefixed_put: callbackRow('put', 'approvals'),
  webhookCallbackPrefixed_patch: callbackRow('patch', 'approvals'),
  webhookCallbackPrefixed_delete: callbackRow('delete', 'approvals'),
  webhookCallbackPrefixed_get: callbackRow('get', 'approvals'),
};
