import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

/** A chain `start ──▶ s1 ──▶ … ──▶ s<n-1>` of n steps. */
function chain(steps: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, Record<string, unknown>> = { start: { type: 'trigger', pluginType: 'manual' } };
  const connections: Array<{ from: string; to: string }> = [];
  for (let index = 1; index < steps; index++) {
    body[`s${index}`] = { type: 'module', pluginType: 'no-op' };
    connections.push({ from: index === 1 ? 'start' : `s${index - 1}`, to: `s${index}` });
  }
  return { name: 'Chain', steps: body, connections, ...extra };
}

/** Each publish-time ceiling answers 400 graph-invalid at the place it is crossed, names its setting, and writes nothing. */
describe('workflow definitions API: size limits', function () {
  this.timeout(30_000);
  let env: WfEnv;
  let org: WfOrg;
  before(async () => {
    ({ env, org } = await wfContext({
      limits: { maxSteps: 50, maxConnections: 60, maxDefinitionBytes: 20_000, maxExpressionLength: 100, minCronIntervalSeconds: 300 },
    }));
  });

  async function refused(body: Record<string, unknown>, path: string, setting: string): Promise<void> {
    const before = await snapshot(env.db, org.id);
    for (const route of ['/workflows/definitions', '/workflows/definitions/validate']) {
      const res = await org.auth(env.t.request.post(route)).send(body);
      if (route.endsWith('validate')) {
        assert.equal(res.status, 200);
        assert.equal(res.body.valid, false);
        assert.ok(
          res.body.errors.some((e: { path: string; message: string }) => e.path === path && e.message.includes(setting)),
          JSON.stringify(res.body),
        );
        continue;
      }
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/graph-invalid$/);
      const error = (res.body.errors as Array<{ path: string; message: string }>).find((e) => e.path === path);
      assert.ok(error, JSON.stringify(res.body.errors));
      assert.ok(error.message.includes(setting), error.message);
    }
    assert.deepEqual(await snapshot(env.db, org.id), before);
  }

  it('accepts a definition exactly at the step limit', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send(chain(50, { key: 'at-limit' }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });

  it('refuses one step too many (WORKFLOW_MAX_STEPS)', async () => {
    await refused(chain(51), '/steps', 'WORKFLOW_MAX_STEPS');
  });

  it('refuses too many connections (WORKFLOW_MAX_CONNECTIONS)', async () => {
    const body = chain(10);
    body.connections = Array.from({ length: 61 }, () => ({ from: 'start', to: 's1' }));
    await refused(body, '/connections', 'WORKFLOW_MAX_CONNECTIONS');
  });

  it('refuses a definition over its byte size (WORKFLOW_MAX_DEFINITION_BYTES)', async () => {
    await refused(chain(5, { description: 'x'.repeat(20_000) }), '', 'WORKFLOW_MAX_DEFINITION_BYTES');
  });

  it('refuses an over-long expression, in a template and in a raw condition (WORKFLOW_MAX_EXPRESSION_LENGTH)', async () => {
    const long = `workflow.inputs.a${' + 1'.repeat(30)}`;
    const inTemplate = chain(3);
    (inTemplate.steps as Record<string, Record<string, unknown>>).s1 = {
      type: 'module',
      pluginType: 'log',
      config: { message: `value: \${{ ${long} }}` },
    };
    await refused(inTemplate, '/steps/s1/config/message', 'WORKFLOW_MAX_EXPRESSION_LENGTH');
    const inCondition = chain(3);
    (inCondition.connections as Array<Record<string, unknown>>)[1].condition = long;
    await refused(inCondition, '/connections/1/condition', 'WORKFLOW_MAX_EXPRESSION_LENGTH');
  });

  it('refuses a cron trigger that fires more often than allowed (WORKFLOW_MIN_CRON_INTERVAL_SECONDS)', async () => {
    const cron = (schedule: string, key?: string) => ({
      name: 'Cron',
      ...(key ? { key } : {}),
      steps: { tick: { type: 'trigger', pluginType: 'cron', config: { schedule } }, work: { type: 'module', pluginType: 'no-op' } },
      connections: [{ from: 'tick', to: 'work' }],
    });
    for (const schedule of ['* * * * *', '*/10 * * * * *', '0,2 * * * *', '@every 1m'])
      await refused(cron(schedule), '/steps/tick/config/schedule', 'WORKFLOW_MIN_CRON_INTERVAL_SECONDS');
    for (const [index, schedule] of ['*/5 * * * *', '0 3 * * *', '@every 5m', '@hourly'].entries()) {
      const res = await org.auth(env.t.request.post('/workflows/definitions')).send(cron(schedule, `cron-${index}`));
      assert.equal(res.status, 201, `${schedule}: ${JSON.stringify(res.body)}`);
    }
  });
});
