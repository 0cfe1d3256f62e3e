import assert from 'node:assert/strict';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { TriggerRegistrationError, type TriggerRegistrar } from '../../api/workflows/registrars';
import { assertDialect } from '../support/dialects';
import { definition } from '../support/definitions';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

/**
 * manual ─┐
 * hook ───┼─▶ work
 * tick ───┘   (tick: cron, registered by the injected registrar)
 */
function triggered(extra: Record<string, unknown> = {}) {
  return definition('Triggers', {
    steps: {
      manual: { type: 'trigger', pluginType: 'manual' },
      hook: { type: 'trigger', pluginType: 'webhook', config: { path: 'in', mode: 'start' } },
      tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '*/5 * * * *', timezone: 'Europe/Madrid' } },
      work: { type: 'module', pluginType: 'no-op', joinStrategy: 'any' },
    },
    connections: [
      { from: 'manual', to: 'work' },
      { from: 'hook', to: 'work' },
      { from: 'tick', to: 'work' },
    ],
    ...extra,
  });
}

/** A cron registrar that records schedules in memory, or fails on demand. */
function fakeCron() {
  const live = new Set<string>();
  let n = 0;
  const state = { failNext: false, failTeardown: false, live };
  const registrar: TriggerRegistrar = {
    register(context) {
      if (state.failNext)
        return Promise.reject(new TriggerRegistrationError('CRON_SCHEDULE_CREATE_FAILED', 'schedule service unavailable'));
      n += 1;
      const scheduleId = `fake-${context.trigger.id}-${n}`;
      live.add(scheduleId);
      return Promise.resolve({ scheduleId, runtimeMetadata: { scheduleId } });
    },
    unregister(registration) {
      if (state.failTeardown) return Promise.reject(new Error('delete timed out'));
      live.delete(registration.scheduleId ?? '');
      return Promise.resolve();
    },
  };
  return { registrar, state };
}

describe('workflows API: aliases, activation and triggers', () => {
  let env: WfEnv;
  let org: WfOrg;
  let cron: ReturnType<typeof fakeCron>;
  const url = (path = '') => `/workflows/definitions/flow${path}`;

  beforeEach(async () => {
    cron = fakeCron();
    ({ env, org } = await wfContext({ registrars: { cron: cron.registrar } }));
    await org.auth(env.t.request.put(url())).send(triggered()).expect(201);
    await org
      .auth(env.t.request.put(url()))
      .send(triggered({ description: 'same content' }))
      .expect(200);
    await org
      .auth(env.t.request.put(url()))
      .send(triggered({ variables: { v: { initialValue: 2 } } }))
      .expect(200);
  });

  it('creates and repoints aliases; latest is reserved', async () => {
    const created = await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 1, metadata: { owner: 'ops' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(
      [created.body.name, created.body.revision, created.body.active, created.body.metadata, created.body.updatedBy],
      ['prod', 1, false, { owner: 'ops' }, org.userId],
    );
    assert.deepEqual(created.body.triggerStates.hook, { status: 'inactive', pluginType: 'webhook', runtimeMetadata: {} });
    assert.deepEqual(Object.keys(created.body.triggerStates).sort(), ['hook', 'manual', 'tick']);
    const moved = await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 2 });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.revision, 2);
    assert.deepEqual(moved.body.metadata, { owner: 'ops' });
    const list = await org.auth(env.t.request.get(url('/aliases')));
    assert.deepEqual(
      list.body.data.map((a: { name: string; revision: number }) => [a.name, a.revision]),
      [
        ['latest', 2],
        ['prod', 2],
      ],
    );
    const before = await snapshot(env.db, org.id);
    assertDialect('problem', await org.auth(env.t.request.put(url('/aliases/latest'))).send({ revision: 1 }), 400);
    assertDialect('problem', await org.auth(env.t.request.delete(url('/aliases/latest'))), 400);
    assertDialect('problem', await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 9 }), 400);
    assertDialect('problem', await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 'one' }), 400);
    assertDialect('problem', await org.auth(env.t.request.put(url('/aliases/bad%20name'))).send({ revision: 1 }), 400);
    assertDialect('problem', await org.auth(env.t.request.get(url('/aliases/nope'))), 404);
    assert.deepEqual(await snapshot(env.db, org.id), before);
    assert.equal((await org.auth(env.t.request.get(url('/aliases/latest')))).body.revision, 2);
  });

  it('POST creates an alias once; a second create answers 409 and changes nothing', async () => {
    const created = await org.auth(env.t.request.post(url('/aliases'))).send({ name: 'staging', revision: 1 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.revision, 1);
    assertDialect('problem', await org.auth(env.t.request.post(url('/aliases'))).send({ name: 'staging', revision: 2 }), 409);
    assertDialect('problem', await org.auth(env.t.request.post(url('/aliases'))).send({ name: 'latest', revision: 2 }), 400);
    assertDialect('problem', await org.auth(env.t.request.post(url('/aliases'))).send({ name: 'bad name', revision: 2 }), 400);
    assert.equal((await org.auth(env.t.request.get(url('/aliases/staging')))).body.revision, 1);
    assert.deepEqual(
      (await org.auth(env.t.request.get(url('/aliases')))).body.data.map((a: { name: string }) => a.name),
      ['latest', 'staging'],
    );
  });

  it('activation registers manual, webhook and cron triggers; deactivation tears them down', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 2 })
      .expect(201);
    const res = await org.auth(env.t.request.post(url('/aliases/prod/activate')));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const states = res.body.alias.triggerStates;
    assert.equal(res.body.alias.active, true);
    assert.deepEqual(Object.keys(states).sort(), ['hook', 'manual', 'tick']);
    for (const id of ['hook', 'manual', 'tick']) assert.equal(states[id].status, 'live');
    const webhookUrl: string = states.hook.runtimeMetadata.webhookUrl;
    assert.match(webhookUrl, /^http:\/\/api\.test\/workflows\/webhooks\/[A-Za-z0-9_-]{32,}$/);
    assert.equal(cron.state.live.size, 1);

    const triggers = await org.auth(env.t.request.get(`/workflows/triggers?workflowId=flow&status=live`));
    assert.deepEqual(
      triggers.body.data
        .map((t: { triggerId: string; aliasName: string; pluginType: string }) => `${t.aliasName}:${t.triggerId}:${t.pluginType}`)
        .sort(),
      ['prod:hook:webhook', 'prod:manual:manual', 'prod:tick:cron'],
    );
    assert.equal(triggers.body.data.find((t: { triggerId: string }) => t.triggerId === 'hook').runtimeMetadata.webhookUrl, webhookUrl);

    assertDialect('problem', await org.auth(env.t.request.delete(url('/aliases/prod'))), 409);
    assertDialect('problem', await org.auth(env.t.request.delete(url())), 409);

    const off = await org.auth(env.t.request.post(url('/aliases/prod/deactivate')));
    assert.equal(off.status, 200);
    assert.equal(off.body.alias.active, false);
    assert.deepEqual(off.body.deactivatedTriggers.sort(), ['hook', 'manual', 'tick']);
    assert.equal('deactivateError' in off.body, false);
    assert.equal(off.body.alias.triggerStates.hook.status, 'inactive');
    assert.equal(off.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl, undefined);
    assert.equal(cron.state.live.size, 0);
    assert.equal(await new TriggerBindingRepository(env.db.manager).findLiveByWebhookToken(webhookUrl.split('/').pop()!), undefined);
    assert.equal((await org.auth(env.t.request.get(`/workflows/triggers?workflowId=flow&status=live`))).body.data.length, 0);
    assert.equal((await org.auth(env.t.request.delete(url('/aliases/prod')))).status, 204);
  });

  it('re-activation mints a new webhook URL and the old token no longer resolves', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    const first = await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    const oldToken = (first.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl as string).split('/').pop()!;
    assert.equal((await new TriggerBindingRepository(env.db.manager).findLiveByWebhookToken(oldToken))?.aliasName, 'prod');
    await org.auth(env.t.request.post(url('/aliases/prod/deactivate'))).expect(200);
    const second = await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    const newUrl: string = second.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl;
    assert.notEqual(newUrl.split('/').pop(), oldToken);
    assert.equal(await new TriggerBindingRepository(env.db.manager).findLiveByWebhookToken(oldToken), undefined);
    // Activating an active alias re-registers too, again with a fresh token.
    const third = await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    assert.notEqual(third.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl, newUrl);
    assert.equal(await new TriggerBindingRepository(env.db.manager).findLiveByWebhookToken(newUrl.split('/').pop()!), undefined);
    assert.equal(cron.state.live.size, 1);
  });

  it('rolls activation back when the cron registration fails', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    cron.state.failNext = true;
    const res = await org.auth(env.t.request.post(url('/aliases/prod/activate')));
    assertDialect('problem', res, 502);
    assert.match(res.body.type, /\/trigger-activation-failed$/);
    const alias = await org.auth(env.t.request.get(url('/aliases/prod')));
    assert.equal(alias.body.active, false);
    for (const id of ['hook', 'manual', 'tick']) {
      assert.equal(alias.body.triggerStates[id].status, 'failed');
      assert.equal(typeof alias.body.triggerStates[id].lastError.message, 'string');
      assert.equal(alias.body.triggerStates[id].runtimeMetadata.webhookUrl, undefined);
    }
    assert.equal(alias.body.triggerStates.tick.lastError.code, 'CRON_SCHEDULE_CREATE_FAILED');
    assert.equal(
      (
        await env.db.query(`SELECT count(*)::int AS n FROM trigger_bindings WHERE organization_id = $1 AND webhook_token IS NOT NULL`, [
          org.id,
        ])
      )[0].n,
      0,
    );
    assert.equal(cron.state.live.size, 0);
    assert.equal((await org.auth(env.t.request.get('/workflows/triggers?status=live'))).body.data.length, 0);
    // Once the cause is gone, activation succeeds.
    cron.state.failNext = false;
    assert.equal((await org.auth(env.t.request.post(url('/aliases/prod/activate')))).body.alias.active, true);
  });

  it('repointing an active alias moves its registrations; a failing move keeps the old ones', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    const on = await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    const oldSchedule = on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId;
    const moved = await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 2 });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.active, true);
    const newSchedule = moved.body.triggerStates.tick.runtimeMetadata.scheduleId;
    assert.notEqual(newSchedule, oldSchedule);
    assert.deepEqual([...cron.state.live], [newSchedule]);
    const triggers = await org.auth(env.t.request.get('/workflows/triggers?workflowId=flow'));
    assert.ok(triggers.body.data.every((t: { revision: number }) => t.revision === 2));

    cron.state.failNext = true;
    assertDialect('problem', await org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: 1 }), 502);
    const alias = await org.auth(env.t.request.get(url('/aliases/prod')));
    assert.deepEqual([alias.body.revision, alias.body.active, alias.body.triggerStates.tick.status], [2, true, 'live']);
    assert.deepEqual([...cron.state.live], [newSchedule]);
  });

  it('an active latest follows a new revision, moving its registrations', async () => {
    const on = await org.auth(env.t.request.post(url('/aliases/latest/activate'))).expect(200);
    const oldSchedule = on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId;
    const published = await org.auth(env.t.request.put(url())).send(triggered({ variables: { v: { initialValue: 3 } } }));
    assert.equal(published.body.mode, 'new-revision');
    assert.deepEqual([published.body.latestAlias.revision, published.body.latestAlias.active], [3, true]);
    const triggers = await org.auth(env.t.request.get('/workflows/triggers?workflowId=flow&status=live'));
    assert.deepEqual([...new Set(triggers.body.data.map((t: { revision: number }) => t.revision))], [3]);
    assert.equal(cron.state.live.has(oldSchedule), false);
    assert.equal(cron.state.live.size, 1);
  });

  it('publish and alias writes answer where each trigger is reached now: the kept webhook URL, the schedule and its next runs', async () => {
    const created = await org.auth(env.t.request.put('/workflows/definitions/summary')).send(triggered());
    assert.equal(created.status, 201);
    // Not active yet: every trigger listed, no URL; the cron trigger's next runs as its dialect reads them (every 5 minutes).
    const inactive = created.body.triggers as Array<Record<string, string | string[]>>;
    assert.deepEqual(inactive.map((t) => [t.alias, t.stepId, t.pluginType, t.status].join(':')).sort(), [
      'latest:hook:webhook:inactive',
      'latest:manual:manual:inactive',
      'latest:tick:cron:inactive',
    ]);
    assert.equal(
      inactive.some((t) => 'webhookUrl' in t),
      false,
    );
    const tick = inactive.find((t) => t.stepId === 'tick') as { schedule: string; timezone: string; nextRuns: string[] };
    assert.deepEqual([tick.schedule, tick.timezone, tick.nextRuns.length], ['*/5 * * * *', 'Europe/Madrid', 3]);
    assert.equal(Date.parse(tick.nextRuns[1]) - Date.parse(tick.nextRuns[0]), 300_000);

    const on = await org.auth(env.t.request.post('/workflows/definitions/summary/aliases/latest/activate')).expect(200);
    const hookOf = (triggers: Array<{ stepId: string; webhookUrl?: string; status: string }>) => triggers.find((t) => t.stepId === 'hook');
    const url = hookOf(on.body.alias.triggers)?.webhookUrl;
    assert.match(String(url), /^http:\/\/api\.test\/workflows\/webhooks\/[A-Za-z0-9_-]{32,}$/);
    assert.equal(url, on.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl);

    // A new revision: the publish answer shows latest's live triggers, the webhook at the URL it had.
    const published = await org
      .auth(env.t.request.put('/workflows/definitions/summary'))
      .send(triggered({ variables: { v: { initialValue: 1 } } }));
    assert.equal(published.body.mode, 'new-revision');
    assert.deepEqual(hookOf(published.body.triggers), {
      stepId: 'hook',
      pluginType: 'webhook',
      alias: 'latest',
      status: 'live',
      webhookUrl: url,
    });
    assert.equal(published.body.latestAlias.triggerStates.hook.runtimeMetadata.webhookUrl, url);
    assert.equal((await new TriggerBindingRepository(env.db.manager).findLiveByWebhookToken(String(url).split('/').pop()!))?.revision, 2);

    // An alias repointed while active keeps its URL too; the answer says so.
    await org.auth(env.t.request.put('/workflows/definitions/summary/aliases/prod')).send({ revision: 1 }).expect(201);
    const prodOn = await org.auth(env.t.request.post('/workflows/definitions/summary/aliases/prod/activate')).expect(200);
    const prodUrl = hookOf(prodOn.body.alias.triggers)?.webhookUrl;
    const moved = await org.auth(env.t.request.put('/workflows/definitions/summary/aliases/prod')).send({ revision: 2 }).expect(200);
    assert.equal(hookOf(moved.body.triggers)?.webhookUrl, prodUrl);
    assert.notEqual(prodUrl, url);
    assert.equal(cron.state.live.size, 2);
  });

  it('reports deactivateError when teardown fails, and still deactivates', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    cron.state.failTeardown = true;
    const off = await org.auth(env.t.request.post(url('/aliases/prod/deactivate')));
    assert.equal(off.status, 200);
    assert.equal(off.body.alias.active, false);
    assert.match(off.body.deactivateError, /tick: delete timed out/);
  });

  it('serializes concurrent activate/deactivate/repoint of one alias', async function () {
    this.timeout(30_000);
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    const ops = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 0
        ? org.auth(env.t.request.post(url('/aliases/prod/activate')))
        : i % 3 === 1
          ? org.auth(env.t.request.post(url('/aliases/prod/deactivate')))
          : org.auth(env.t.request.put(url('/aliases/prod'))).send({ revision: (i % 2) + 1 }),
    );
    for (const res of await Promise.all(ops)) assert.equal(res.status < 300, true, JSON.stringify(res.body));
    const alias = await org.auth(env.t.request.get(url('/aliases/prod')));
    const states = Object.values<{ status: string }>(alias.body.triggerStates);
    if (alias.body.active) {
      assert.ok(states.every((s) => s.status === 'live'));
      assert.equal(cron.state.live.size, 1);
    } else {
      assert.ok(states.every((s) => s.status === 'inactive'));
      assert.equal(cron.state.live.size, 0);
    }
    const [{ n }] = await env.db.query(`SELECT count(*)::int AS n FROM trigger_bindings WHERE organization_id = $1 AND status = 'live'`, [
      org.id,
    ]);
    assert.equal(n, alias.body.active ? 3 : 0);
  });

  it('rejects an unknown trigger status filter; activating an unknown alias answers 404 and writes nothing', async () => {
    const res = await org.auth(env.t.request.get('/workflows/triggers?status=running'));
    assertDialect('problem', res, 400);
    const before = await snapshot(env.db, org.id);
    const missing = await org.auth(env.t.request.post(url('/aliases/ghost/activate')));
    assertDialect('problem', missing, 404);
    assert.match(missing.body.type, /\/alias-not-found$/);
    assertDialect('problem', await org.auth(env.t.request.post('/workflows/definitions/ghost/aliases/latest/activate')), 404);
    assert.deepEqual(await snapshot(env.db, org.id), before);
  });

  it('isolates aliases and triggers by organization', async () => {
    await org
      .auth(env.t.request.put(url('/aliases/prod')))
      .send({ revision: 1 })
      .expect(201);
    await org.auth(env.t.request.post(url('/aliases/prod/activate'))).expect(200);
    const as = (req: import('supertest').Test) => req.set('Authorization', `Bearer ${org.other.token}`);
    assertDialect('problem', await as(env.t.request.post(url('/aliases/prod/deactivate'))), 404);
    assertDialect('problem', await as(env.t.request.put(url('/aliases/prod'))).send({ revision: 1 }), 404);
    assert.deepEqual((await as(env.t.request.get('/workflows/triggers'))).body.data, []);
    assert.deepEqual((await as(env.t.request.get('/workflows/triggers?workflowId=flow'))).body.data, []);
    assert.equal((await org.auth(env.t.request.get(url('/aliases/prod')))).body.active, true);
  });
});
