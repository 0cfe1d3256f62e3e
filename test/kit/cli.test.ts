/**
 * The `platform-workflow` command line as users run it: real child processes,
 * local commands on files, and server commands against the API (on a free
 * port, with PostgreSQL, Temporal and a worker behind it).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScript, type ScriptResult } from '../support/process';
import { useExecEnv } from '../executions-api/support';

const CLI = 'kit/cli/main.ts';

function cli(args: string[], env: Record<string, string> = {}): Promise<ScriptResult> {
  return runScript(CLI, { args, env: { NO_COLOR: '1', PLATFORM_API_URL: '', PLATFORM_API_TOKEN: '', ...env }, timeoutMs: 60_000 });
}

const APPROVAL = `name: Approval
key: KEY
path: /kit-cli
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: ask
    type: module
    pluginType: log
    dependsOn: [start]
    config:
      message: "approve \${{ workflow.inputs.what }}?"
  - id: approval
    type: wait
    dependsOn: [ask]
    config: { signalName: approve, timeout: 1h }
outputs:
  approvedBy: "\${{ steps.approval.outputs.payload.by }}"
`;

const CALL = `name: Call
key: cli-call
path: /kit-cli
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: call
    type: module
    pluginType: http-request
    dependsOn: [start]
    config: { method: GET, url: "\${{ vars.URL }}" }
outputs:
  status: "\${{ steps.call.outputs.statusCode }}"
  up: "\${{ steps.call.outputs.body.up }}"
`;

describe('platform-workflow: local commands', function () {
  this.timeout(90_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-'));

  it('validate prints file:line:col for every error and exits 1; valid files exit 0', async () => {
    writeFileSync(path.join(dir, 'good.yaml'), APPROVAL.replace('KEY', 'good'));
    writeFileSync(path.join(dir, 'bad.yaml'), APPROVAL.replace('KEY', 'bad').replace('pluginType: log', 'pluginType: lgo'));
    // Not a definition: folder scans pass over package manifests.
    writeFileSync(path.join(dir, 'package.json'), '{"name": "flows"}');
    const bad = await cli(['validate', dir]);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(
      bad.stderr,
      new RegExp(
        `${path.join(dir, 'bad.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:10:17 /steps/1/pluginType: Unknown plugin type: lgo`,
      ),
    );
    assert.match(bad.stdout, /1 of 2 definitions valid/);
    const good = await cli(['validate', path.join(dir, 'good.yaml')]);
    assert.equal(good.code, 0, good.stderr);
  });

  it('run executes a file locally with a stub module, inputs and signals, and --json prints the result', async () => {
    const stub = path.join(dir, 'stub.cjs');
    writeFileSync(stub, `module.exports = (ctx) => ({ echoed: ctx.config.message });\n`);
    const file = path.join(dir, 'good.yaml');
    const result = await cli([
      'run',
      file,
      '--inputs',
      '{"what":"deploy"}',
      '--signals',
      '{"approve":{"by":"ann"}}',
      '--stub',
      `log=${stub}`,
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const run = JSON.parse(result.stdout);
    assert.equal(run.status, 'completed');
    assert.deepEqual(run.outputs, { approvedBy: 'ann' });
    assert.deepEqual(run.steps.ask.outputs, { echoed: 'approve deploy?' });

    const unanswered = await cli(['run', file, '--inputs', '{"what":"x"}']);
    assert.equal(unanswered.code, 1);
    assert.match(unanswered.stderr, /failed at step "approval"/);

    const usage = await cli(['run', file, '--inputs', 'not json']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--inputs: not valid JSON/);
  });

  it('run reaches a service on this machine only when the run opens loopback (--allow-egress, --allow-loopback, EGRESS_ALLOW_CIDRS)', async () => {
    const service = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"up":true}'),
    );
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const file = path.join(dir, 'call.yaml');
      writeFileSync(file, CALL);
      const vars = JSON.stringify({ URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}/status` });

      const closed = await cli(['run', file, '--vars', vars]);
      assert.equal(closed.code, 1, closed.stdout);
      assert.match(closed.stderr, /failed at step "call": egress to 127\.0\.0\.1 is not allowed: 127\.0\.0\.0\/8, loopback/);
      // The message names what opens it for this run, not only the operator's setting.
      assert.match(closed.stderr, /--allow-egress CIDR/);

      for (const [args, env] of [
        [['--allow-egress', '127.0.0.0/8,::1'], {}],
        [['--allow-egress', '10.0.0.0/8', '--allow-egress', '127.0.0.1'], {}],
        [['--allow-loopback'], {}],
        [[], { EGRESS_ALLOW_CIDRS: '127.0.0.0/8' }],
      ] as Array<[string[], Record<string, string>]>) {
        const open = await cli(['run', file, '--vars', vars, ...args, '--json'], env);
        assert.equal(open.code, 0, `${args.join(' ')} ${JSON.stringify(env)}: ${open.stderr}`);
        assert.deepEqual(JSON.parse(open.stdout).outputs, { status: 200, up: true });
      }

      const bad = await cli(['run', file, '--vars', vars, '--allow-egress', 'localhost']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--allow-egress: "localhost" is not an IP address or CIDR range/);
      const remote = await cli(['run', 'cli-call', '--allow-loopback'], { PLATFORM_API_URL: 'http://127.0.0.1:9' });
      assert.equal(remote.code, 2);
      assert.match(remote.stderr, /--allow-loopback: only a local run of a file takes this/);
    } finally {
      await new Promise((resolve) => service.close(resolve));
    }
  });
});

describe('platform-workflow: against the API', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let url: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-api-'));
  const cliEnv = () => ({ PLATFORM_API_URL: url, PLATFORM_API_TOKEN: org.token });

  before(async () => {
    server = createServer(env.t.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('publish upserts every file by key, reports each mode, moves and activates the alias', async () => {
    mkdirSync(path.join(dir, 'flows'));
    writeFileSync(path.join(dir, 'flows', 'approval.yaml'), APPROVAL.replace('KEY', 'cli-approval'));
    writeFileSync(
      path.join(dir, 'flows', 'hello.yaml'),
      APPROVAL.replace('KEY', 'cli-hello')
        .replace(/ {2}- id: approval[\s\S]*?timeout: 1h \}\n/, '')
        .replace(/outputs:[\s\S]*$/, ''),
    );
    const first = await cli(['publish', path.join(dir, 'flows'), '--activate'], cliEnv());
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /published +\S*flows\/approval\.yaml: cli-approval revision 1 \(created\)/);
    assert.match(first.stdout, /published +\S*flows\/hello\.yaml: cli-hello revision 1 \(created\)/);
    assert.match(first.stdout, /alias latest activated/);
    assert.match(first.stdout, /2 published, 0 unchanged, 0 refused/);
    const latest = await org.auth(env.t.request.get('/workflows/definitions/cli-hello/aliases'));
    assert.equal(latest.body.data.find((alias: { name: string }) => alias.name === 'latest').active, true);

    const again = await cli(['publish', path.join(dir, 'flows', 'approval.yaml')], cliEnv());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /unchanged +\S*\/approval\.yaml: cli-approval revision 1 \(the newest revision has this content\)/);

    writeFileSync(path.join(dir, 'flows', 'approval.yaml'), APPROVAL.replace('KEY', 'cli-approval').replace('approve ', 'please approve '));
    const changed = await cli(['publish', path.join(dir, 'flows', 'approval.yaml'), '--alias', 'prod', '--activate'], cliEnv());
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /published +\S*\/approval\.yaml: cli-approval revision 2 \(new-revision\)/);
    assert.match(changed.stdout, /alias prod → revision 2/);
    assert.match(changed.stdout, /alias prod activated/);
    const aliases = await org.auth(env.t.request.get('/workflows/definitions/cli-approval/aliases'));
    const prod = aliases.body.data.find((alias: { name: string }) => alias.name === 'prod');
    assert.equal(prod.revision, 2);
    assert.equal(prod.active, true);
  });

  it("publish of a folder publishes every file it can and refuses each other one with the server's reason, located in the file", async () => {
    const folder = path.join(dir, 'mixed');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a-good.yaml'), APPROVAL.replace('KEY', 'cli-mixed-good'));
    writeFileSync(
      path.join(folder, 'b-bad-path.yaml'),
      APPROVAL.replace('KEY', 'cli-mixed-path').replace('path: /kit-cli', 'path: not-a-path'),
    );
    writeFileSync(path.join(folder, 'c-broken.yaml'), 'name: [unclosed\n');
    // The kit does not know acme-deploy and neither does this server: the server says so.
    writeFileSync(
      path.join(folder, 'd-vendor.yaml'),
      APPROVAL.replace('KEY', 'cli-mixed-vendor').replace('pluginType: log', 'pluginType: acme-deploy'),
    );
    writeFileSync(path.join(folder, 'e-good.yaml'), APPROVAL.replace('KEY', 'cli-mixed-later'));
    const result = await cli(['publish', folder], cliEnv());
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /published +\S*\/a-good\.yaml: cli-mixed-good revision 1 \(created\)/);
    assert.match(result.stdout, /published +\S*\/e-good\.yaml: cli-mixed-later revision 1 \(created\)/);
    assert.match(result.stderr, /refused +\S*\/b-bad-path\.yaml: cli-mixed-path: 400 .*must be an absolute folder path/);
    assert.match(result.stderr, /b-bad-path\.yaml:3:7 \/path: must be an absolute folder path/);
    assert.match(result.stderr, /refused +\S*\/c-broken\.yaml: does not parse as YAML or JSON; nothing was sent/);
    assert.match(result.stderr, /c-broken\.yaml:\d+:\d+ /);
    assert.match(result.stderr, /refused +\S*\/d-vendor\.yaml: cli-mixed-vendor: 400 .*Unknown plugin type: acme-deploy/);
    assert.match(result.stderr, /d-vendor\.yaml:10:17 \/steps\/1\/pluginType: Unknown plugin type: acme-deploy/);
    assert.match(result.stdout, /2 published, 0 unchanged, 3 refused/);

    // The file published, its alias did not: both said, and the exit code says the publish did not all happen.
    const alias = await cli(['publish', path.join(folder, 'a-good.yaml'), '--alias', 'Not Valid'], cliEnv());
    assert.equal(alias.code, 1, alias.stderr);
    assert.match(alias.stdout, /unchanged +\S*\/a-good\.yaml: cli-mixed-good revision 1/);
    assert.match(
      alias.stderr,
      /refused +\S*\/a-good\.yaml: cli-mixed-good: PUT \/workflows\/definitions\/cli-mixed-good\/aliases\/Not%20Valid: 400 /,
    );
    assert.match(alias.stdout, /0 published, 0 unchanged, 1 refused/);
    for (const [key, status] of [
      ['cli-mixed-good', 200],
      ['cli-mixed-later', 200],
      ['cli-mixed-path', 404],
      ['cli-mixed-vendor', 404],
    ] as const)
      assert.equal((await org.auth(env.t.request.get(`/workflows/definitions/${key}`))).status, status, key);
  });

  it('publish examples/ publishes every shipped example this server can run and refuses the approval for its vendor plugin', async () => {
    const result = await cli(['publish', 'examples/'], cliEnv());
    assert.equal(result.code, 1, result.stderr);
    const lines = `${result.stdout}\n${result.stderr}`.split('\n');
    const statusOf = (file: string) => lines.find((line) => line.includes(` ${file}: `))?.split(' ')[0];
    assert.deepEqual(
      Object.fromEntries(
        [
          'examples/access-request/access-request.yaml',
          'examples/approval/deploy-approval.yaml',
          'examples/paginated-fan-out/provision-user.yaml',
          'examples/paginated-fan-out/sync-users.yaml',
          'examples/webhook-to-api/order-webhook.yaml',
        ].map((file) => [file, statusOf(file)]),
      ),
      {
        'examples/access-request/access-request.yaml': 'published',
        'examples/approval/deploy-approval.yaml': 'refused',
        'examples/paginated-fan-out/provision-user.yaml': 'published',
        'examples/paginated-fan-out/sync-users.yaml': 'published',
        'examples/webhook-to-api/order-webhook.yaml': 'published',
      },
    );
    assert.match(result.stderr, /deploy-approval: 400 .*Unknown plugin type: acme-deploy/);
    assert.match(result.stdout, /4 published, 0 unchanged, 1 refused/);
  });

  it('execute --follow streams logs to the end; signal answers 409 as exit 5 until the run waits on that name; logs --follow', async () => {
    const hello = await cli(['execute', 'cli-hello', '--inputs', '{"what":"lunch"}', '--follow'], cliEnv());
    assert.equal(hello.code, 0, hello.stderr);
    assert.match(hello.stdout, /ask: approve lunch\?/);
    assert.match(hello.stdout, /completed/);

    const started = await cli(['execute', 'cli-approval', '--inputs', '{"what":"release"}'], cliEnv());
    assert.equal(started.code, 0, started.stderr);
    const executionId = started.stdout.trim();
    assert.match(executionId, /^exec_/);

    const wrong = await cli(['signal', executionId, 'reject', '--payload', '{}'], cliEnv());
    assert.equal(wrong.code, 5, wrong.stderr);
    assert.match(wrong.stderr, /409/);

    // The run reaches its wait shortly after starting: retry the right signal until it is delivered.
    let delivered: ScriptResult | undefined;
    for (let i = 0; i < 20 && delivered?.code !== 0; i++) {
      delivered = await cli(['signal', executionId, 'approve', '--payload', '{"by":"ann"}'], cliEnv());
      if (delivered.code !== 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(delivered?.code, 0, delivered?.stderr);
    assert.match(delivered.stdout, /delivered approve \(sig_/);

    const logs = await cli(['logs', executionId, '--follow'], cliEnv());
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /please approve release\?/);
    assert.match(logs.stdout, /completed outputs: \{"approvedBy":"ann"\}/);
  });

  it('config set and list manage variables and secrets', async () => {
    const set = await cli(['config', 'set', 'REGION', 'eu-west-1', '--path', '/'], cliEnv());
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /created var REGION/);
    const secret = await cli(['config', 'set', 'API_KEY', 'hunter22', '--secret', '--workflow', 'cli-approval'], cliEnv());
    assert.equal(secret.code, 0, secret.stderr);
    const scoped = await cli(['config', 'set', 'ZONE', 'b', '--path', '/team', '--nrn', 'organization=999999999:account=7'], cliEnv());
    assert.equal(scoped.code, 1, 'an nrn outside the organization is refused');
    assert.match(scoped.stderr, /invalid_nrn|must lie inside your organization/);
    const list = await cli(['config', 'list', '--workflow', 'cli-approval', '--ancestors'], cliEnv());
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /REGION\s+"eu-west-1"\s+path \/ nrn organization=\d+/);
    assert.match(list.stdout, /API_KEY\s+\(secret\)/);
    assert.doesNotMatch(list.stdout, /hunter22/);
  });

  it('says so when the server is unreachable (exit 3) or the token is refused (exit 4)', async () => {
    const down = await cli(['logs', 'exec_x'], { PLATFORM_API_URL: 'http://127.0.0.1:1', PLATFORM_API_TOKEN: 't' });
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
    const refused = await cli(['execute', 'cli-hello', '--url', url, '--token', 'not-a-token']);
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /401/);
    // A refused token would refuse every file alike: publish stops at the first.
    const unauthorized = await cli(['publish', path.join(dir, 'mixed'), '--url', url, '--token', 'not-a-token']);
    assert.equal(unauthorized.code, 4, unauthorized.stderr);
    assert.match(unauthorized.stderr, /a-good\.yaml: PUT \/workflows\/definitions\/cli-mixed-good: 401/);
    assert.doesNotMatch(`${unauthorized.stdout}${unauthorized.stderr}`, /b-bad-path|refused/);
    const noServer = await cli(['execute', 'cli-hello']);
    assert.equal(noServer.code, 2);
    assert.match(noServer.stderr, /PLATFORM_API_URL/);
  });
});
