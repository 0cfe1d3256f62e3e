/**
 * A workflow reaches only what lies within its own NRN (api/access/workflow-reach.ts).
 * A member holding `developer` on `organization=<org>:account=7` publishes workflows
 * there; what those workflows reach around the routes (children, folder secrets and
 * variables, other runs' failures) stays inside account=7. Each row shows the refusal
 * and the allowed case, through HTTP, PostgreSQL, Temporal and the real worker.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { Test } from 'supertest';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { trigger } from '../support/definitions';
import { grantRole } from '../support/grants';
import { signedHeaders } from '../support/webhook-signing';
import { useLocalServer } from '../support/local-server';
import { countExecutions, finished, useExecEnv, waitFor, type ExecEnv, type OrgContext } from '../executions-api/support';

type Auth = (req: Test) => Test;

describe('engine authorization: a workflow reaches only within its own NRN', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv({ org: 'each' });
  const received: IncomingHttpHeaders[] = [];
  const server = useLocalServer((req, res) => {
    received.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  beforeEach(() => {
    received.length = 0;
  });

  const orgNrn = () => `organization=${org.id}`;
  const account = (n: number | string) => `organization=${org.id}:account=${n}`;

  /** The team: a member with `developer` on account=7 only. */
  async function team(): Promise<Auth> {
    const { userId } = await grantRole(env.db, org.id, 'developer', account(7));
    const token = await env.t.token({ organizationId: org.id, userId });
    return (req) => req.set('Authorization', `Bearer ${token}`);
  }

  async function publishAs(auth: Auth, body: Record<string, unknown>): Promise<string> {
    const res = await auth(env.t.request.post('/workflows/definitions')).send(body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.workflow.id as string;
  }

  async function runAs(auth: Auth, key: string): Promise<Record<string, unknown>> {
    const res = await auth(env.t.request.post(`/workflows/definitions/${key}/execute`)).send({});
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return waitFor(env, org, res.body.executionId as string, finished, '', 60_000);
  }

  const errorOf = (done: Record<string, unknown>) => done.error as { type: string; message: string };
  const runsOfWorkflow = async (workflowId: string) =>
    (await env.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE workflow_id = $1`, [workflowId]))[0].n;

  it('sub-workflow: a child at or beneath the parent NRN runs; one at the organization or another account is refused and never runs', async () => {
    const member = await team();
    const rows = [
      { name: 'org', nrn: orgNrn(), runs: false },
      { name: 'acct8', nrn: account(8), runs: false },
      { name: 'acct7', nrn: account(7), runs: true },
      { name: 'acct7-ns', nrn: `${account(7)}:namespace=3`, runs: true },
    ];
    for (const row of rows) {
      // The admin publishes the child wherever the row says; the team publishes the parent in its account.
      const childId = await publishAs(org.auth, {
        name: `child ${row.name}`,
        key: `child-${row.name}`,
        nrn: row.nrn,
        steps: [trigger()],
        outputs: { secretOfChild: `payroll of ${row.name}` },
      });
      await publishAs(member, {
        name: `parent ${row.name}`,
        key: `parent-${row.name}`,
        nrn: account(7),
        steps: [
          trigger(),
          { id: 'child', type: 'module', pluginType: 'sub-workflow', config: { workflowId: `child-${row.name}` }, dependsOn: ['start'] },
        ],
        outputs: { got: '${{ steps.child.outputs.outputs }}' },
      });
      const done = await runAs(member, `parent-${row.name}`);
      if (row.runs) {
        assert.equal(done.status, 'completed', `${row.name}: ${JSON.stringify(done)}`);
        assert.deepEqual(done.outputs, { got: { secretOfChild: `payroll of ${row.name}` } }, row.name);
        assert.equal(await runsOfWorkflow(childId), 1, `${row.name}: the child ran`);
      } else {
        assert.equal(done.status, 'failed', `${row.name}: ${JSON.stringify(done)}`);
        assert.equal(errorOf(done).type, 'SUBWORKFLOW_FORBIDDEN', row.name);
        assert.ok(
          errorOf(done).message.includes(`at ${row.nrn}, outside the parent workflow's NRN ${account(7)}`),
          `${row.name}: ${errorOf(done).message}`,
        );
        assert.equal(await runsOfWorkflow(childId), 0, `${row.name}: the child never ran`);
        // The same refusal as the route gives the member directly.
        assert.equal((await member(env.t.request.post(`/workflows/definitions/child-${row.name}/execute`)).send({})).status, 403);
      }
    }
  });

  it('folder secrets and variables: an entry at the organization NRN is unusable by the team, one created with the team nrn is used', async () => {
    const member = await team();
    const entry = async (body: Record<string, unknown>) => {
      const res = await org.auth(env.t.request.post('/workflows/config')).send(body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    };
    await entry({ name: 'ROOT_KEY', value: 'root-secret-value', secret: true, path: '/' });
    await entry({ name: 'TEAM_KEY', value: 'team-secret-value', secret: true, path: '/', nrn: account(7) });
    await entry({ name: 'ROOT_REGION', value: 'root-region', path: '/' });
    await entry({ name: 'TEAM_REGION', value: 'team-region', path: '/', nrn: account(7) });
    /** Sends a header built from `template` to the team's server. */
    const sender = (key: string, template: string) =>
      publishAs(member, {
        name: key,
        key,
        nrn: account(7),
        path: '/',
        steps: [
          trigger(),
          {
            id: 'send',
            type: 'module',
            pluginType: 'http-request',
            config: { url: `${server.base}/collect`, headers: { 'x-leak': template } },
            dependsOn: ['start'],
          },
        ],
      });
    const keyOf = (name: string) => `send-${name.toLowerCase().replace(/_/g, '-')}`;
    const rows = [
      {
        kind: 'secret',
        refused: 'ROOT_KEY',
        used: 'TEAM_KEY',
        value: 'team-secret-value',
        template: (n: string) => `\${{ secrets.${n} }}`,
      },
      { kind: 'variable', refused: 'ROOT_REGION', used: 'TEAM_REGION', value: 'team-region', template: (n: string) => `\${{ vars.${n} }}` },
    ];
    for (const row of rows) {
      await sender(keyOf(row.refused), row.template(row.refused));
      const refused = await runAs(member, keyOf(row.refused));
      assert.equal(refused.status, 'failed', JSON.stringify(refused));
      assert.equal(errorOf(refused).type, 'CONFIG_ENTRY_UNRESOLVED');
      assert.equal(errorOf(refused).message, `${row.kind} ${row.refused} exists at ${orgNrn()}, outside the workflow's NRN ${account(7)}`);
      assert.deepEqual(received, [], `${row.kind}: nothing reached the server`);

      await sender(keyOf(row.used), row.template(row.used));
      const used = await runAs(member, keyOf(row.used));
      assert.equal(used.status, 'completed', JSON.stringify(used));
      assert.deepEqual(
        received.map((headers) => headers['x-leak']),
        [row.value],
      );
      received.length = 0;
    }
  });

  it('a webhook trigger signs with a folder secret within the workflow NRN only; publish warnings say the same', async () => {
    const member = await team();
    for (const [name, value, nrn] of [
      ['ROOT_HOOK', 'root-hook-secret', undefined],
      ['TEAM_HOOK', 'team-hook-secret', account(7)],
    ] as const) {
      const res = await org
        .auth(env.t.request.post('/workflows/config'))
        .send({ name, value, secret: true, path: '/', ...(nrn ? { nrn } : {}) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const rows = [
      { name: 'ROOT_HOOK', value: 'root-hook-secret', accepted: false },
      { name: 'TEAM_HOOK', value: 'team-hook-secret', accepted: true },
    ];
    for (const row of rows) {
      const key = `hooked-${row.name.toLowerCase().replace(/_/g, '-')}`;
      const published = await member(env.t.request.post('/workflows/definitions')).send({
        name: key,
        key,
        nrn: account(7),
        path: '/',
        steps: [
          {
            id: 'hook',
            type: 'trigger',
            pluginType: 'webhook',
            config: { mode: 'start', method: 'POST', secret: `\${{ secrets.${row.name} }}` },
          },
          { id: 'note', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['hook'] },
        ],
      });
      assert.equal(published.status, 201, JSON.stringify(published.body));
      const unresolved = (published.body.warnings as Array<{ code: string; name: string }>).filter(
        (w) => w.code === 'CONFIG_ENTRY_UNRESOLVED',
      );
      assert.deepEqual(
        unresolved.map((w) => w.name),
        row.accepted ? [] : [row.name],
        `${row.name}: publishing warns of a secret out of the workflow's reach`,
      );
      const activated = await member(env.t.request.post(`/workflows/definitions/${key}/aliases/latest/activate`));
      assert.equal(activated.status, 200, JSON.stringify(activated.body));
      const aliases = await member(env.t.request.get(`/workflows/definitions/${key}/aliases`));
      const path = new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
      const body = JSON.stringify({ event: 'push' });
      const before = await countExecutions(env.db, org.id);
      const res = await env.t.request.post(path).set('Content-Type', 'application/json').set(signedHeaders(body, row.value)).send(body);
      assert.equal(res.status, row.accepted ? 202 : 401, `${row.name}: ${JSON.stringify(res.body)}`);
      assert.equal(await countExecutions(env.db, org.id), before + (row.accepted ? 1 : 0));
    }
  });

  it("moving a workflow's path gives no reach: entries are bounded by NRN, not by folder", async () => {
    const member = await team();
    await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'PAYROLL_KEY', value: 'root-only', secret: true, path: '/' })
      .expect(201);
    await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'PAYROLL_KEY', value: 'team-copy', secret: true, path: '/team', nrn: account(7) })
      .expect(201);
    await publishAs(member, {
      name: 'mover',
      key: 'mover',
      nrn: account(7),
      path: '/team',
      steps: [
        trigger(),
        {
          id: 'send',
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.base}/collect`, headers: { 'x-leak': '${{ secrets.PAYROLL_KEY }}' } },
          dependsOn: ['start'],
        },
      ],
    });
    // At /team the team's own entry is the effective one.
    assert.equal((await runAs(member, 'mover')).status, 'completed');
    assert.deepEqual(
      received.map((headers) => headers['x-leak']),
      ['team-copy'],
    );
    received.length = 0;
    // Moving to the root needs only workflow:write (the member has it), and reaches nothing more.
    const moved = await member(env.t.request.patch('/workflows/definitions/mover')).send({ path: '/' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const done = await runAs(member, 'mover');
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.equal(errorOf(done).type, 'CONFIG_ENTRY_UNRESOLVED');
    assert.match(errorOf(done).message, /secret PAYROLL_KEY exists at organization=\d+, outside the workflow's NRN/);
    assert.deepEqual(received, []);
    // Moving its NRN needs workflow:write on the old and the new NRN: the member has it on neither the organization nor account=8.
    for (const nrn of [orgNrn(), account(8)]) {
      const res = await member(env.t.request.put('/workflows/definitions/mover')).send({
        name: 'mover',
        nrn,
        path: '/',
        steps: [trigger()],
      });
      assert.equal(res.status, 403, JSON.stringify(res.body));
    }
  });

  it('recovery triggers: the team hears failures of its own account, never of the organization or another account', async () => {
    const member = await team();
    for (const [key, pluginType] of [
      ['team-recover', 'execution-failed-trigger'],
      ['team-on-error', 'on-error'],
    ]) {
      await publishAs(member, {
        name: key,
        key,
        nrn: account(7),
        steps: [
          { id: 'heard', type: 'trigger', pluginType, config: {} },
          { id: 'note', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['heard'] },
        ],
        outputs: { failed: '${{ workflow.inputs.executionId }}', message: '${{ workflow.inputs.error.message }}' },
      });
      const activated = await member(env.t.request.post(`/workflows/definitions/${key}/aliases/latest/activate`));
      assert.equal(activated.status, 200, JSON.stringify(activated.body));
    }
    const failing = (key: string, nrn: string, auth: Auth) =>
      publishAs(auth, {
        name: key,
        key,
        nrn,
        steps: [
          trigger(),
          { id: 'boom', type: 'module', pluginType: 'fail', config: { message: `confidential ${key}` }, dependsOn: ['start'] },
        ],
      });
    await failing('fails-org', orgNrn(), org.auth);
    await failing('fails-8', account(8), org.auth);
    await failing('fails-7', account(7), member);
    const dispatched = async (id: string) => {
      for (let i = 0; i < 600; i++) {
        if ((await new ExecutionRepository(env.db.manager).findOneBy({ id }))?.failureDispatchedAt) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the failure of ${id} was never dispatched`);
    };
    const outside: string[] = [];
    for (const key of ['fails-org', 'fails-8']) {
      const done = await runAs(org.auth, key);
      assert.equal(done.status, 'failed');
      outside.push(done.id as string);
      await dispatched(done.id as string);
    }
    const inside = await runAs(member, 'fails-7');
    assert.equal(inside.status, 'failed');
    await dispatched(inside.id as string);
    for (const handler of ['team-recover', 'team-on-error']) {
      const runs = await recoveryRuns(env, org, handler);
      assert.deepEqual(
        runs.map((run) => run.idempotencyKey),
        [`onerror:${inside.id as string}`],
        `${handler} heard only the failure within its NRN (not ${outside.join(', ')})`,
      );
      const done = await waitFor(env, org, runs[0].id, finished, '', 60_000);
      assert.equal((done.outputs as { failed: string }).failed, inside.id);
      assert.match((done.outputs as { message: string }).message, /confidential fails-7/);
    }
  });
});

async function recoveryRuns(env: ExecEnv, org: OrgContext, key: string): Promise<Array<{ id: string; idempotencyKey?: string }>> {
  const res = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${key}`));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as Array<{ id: string; idempotencyKey?: string }>;
}
