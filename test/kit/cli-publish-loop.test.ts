/**
 * The publish loop of the compatible engine's scripts, with `platform-workflow`
 * against a real app (PostgreSQL, Temporal, a worker): `publish FILE --alias
 * live` makes the revision, moves the alias and activates it in one command;
 * `run KEY --inputs JSON` executes on the server and waits for the end.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collect, runScript, spawnScript, type ScriptResult } from '../support/process';
import { useExecEnv } from '../executions-api/support';

const CLI = 'kit/cli/main.ts';

function cli(args: string[], env: Record<string, string> = {}): Promise<ScriptResult> {
  return runScript(CLI, { args, env: { NO_COLOR: '1', PLATFORM_API_URL: '', PLATFORM_API_TOKEN: '', ...env }, timeoutMs: 60_000 });
}

const HOOK = `name: Hook
key: KEY
path: /kit-cli
steps:
  - id: received
    type: trigger
    pluginType: webhook
    config: { method: POST }
  - id: note
    type: module
    pluginType: log
    dependsOn: [received]
    config: { message: "MESSAGE" }
`;

const ASK = `name: Ask
key: cli-loop-ask
path: /kit-cli
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: hello
    type: module
    pluginType: log
    dependsOn: [start]
    config: { message: "asking about \${{ workflow.inputs.what }}" }
  - id: approval
    type: wait
    dependsOn: [hello]
    config: { signalName: approve, timeout: 1h }
outputs:
  approvedBy: "\${{ steps.approval.outputs.payload.by }}"
`;

const GREET = `name: Greet
key: cli-loop-greet
path: /kit-cli
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: hello
    type: module
    pluginType: log
    dependsOn: [start]
    config: { message: "hello \${{ workflow.inputs.who }}" }
  - id: refuse
    type: module
    pluginType: fail
    dependsOn: [hello]
    condition: "workflow.inputs.who == 'mallory'"
    config: { message: "not you", code: NOT_YOU }
outputs:
  greeted: "\${{ workflow.inputs.who }}"
`;

describe('platform-workflow: the publish loop', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let url: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-loop-'));
  const cliEnv = () => ({ PLATFORM_API_URL: url, PLATFORM_API_TOKEN: org.token });
  const alias = async (key: string, name: string) => {
    const res = await org.auth(env.t.request.get(`/workflows/definitions/${key}/aliases/${name}`));
    return res.status === 200 ? (res.body as { revision: number; active: boolean; triggerStates: Record<string, unknown> }) : undefined;
  };
  const webhookUrl = (state: { triggerStates: Record<string, unknown> } | undefined) =>
    (state?.triggerStates.received as { runtimeMetadata?: { webhookUrl?: string } } | undefined)?.runtimeMetadata?.webhookUrl;

  before(async () => {
    server = createServer(env.t.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('publish --alias NAME moves the alias to the new revision and activates it; again, the active alias moves with its triggers', async () => {
    const file = path.join(dir, 'hook.yaml');
    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-hook').replace('MESSAGE', 'one'));
    const first = await cli(['publish', file, '--alias', 'live'], cliEnv());
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /published +\S*hook\.yaml: cli-loop-hook revision 1 \(created\)/);
    assert.match(first.stdout, /alias live → revision 1\n {2}alias live activated/);
    const live = await alias('cli-loop-hook', 'live');
    assert.deepEqual([live?.revision, live?.active], [1, true]);
    assert.equal((live?.triggerStates.received as { status?: string }).status, 'live');
    assert.match(String(webhookUrl(live)), /\/workflows\/webhooks\//);
    // The command prints the live URL to send requests to.
    assert.ok(first.stdout.includes(`\n  webhook received: ${webhookUrl(live)}\n`), first.stdout);

    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-hook').replace('MESSAGE', 'two'));
    const second = await cli(['publish', file, '--alias', 'live'], cliEnv());
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /cli-loop-hook revision 2 \(new-revision\)/);
    assert.match(second.stdout, /alias live → revision 2\n {2}alias live is active \(its triggers are on revision 2\)/);
    const moved = await alias('cli-loop-hook', 'live');
    assert.deepEqual([moved?.revision, moved?.active], [2, true]);
    // Repointing the active alias moved its registrations to revision 2 (one registration, not a second activation).
    assert.equal((moved?.triggerStates.received as { status?: string }).status, 'live');
    assert.match(String(webhookUrl(moved)), /\/workflows\/webhooks\//);
    // The URL belongs to the alias: the new revision is reached where the old one was, and the command says so.
    assert.equal(webhookUrl(moved), webhookUrl(live));
    assert.ok(second.stdout.includes(`\n  webhook received: ${webhookUrl(live)}\n`), second.stdout);
  });

  it('publish --alias NAME --no-activate only moves the alias; --activate alone activates latest', async () => {
    const file = path.join(dir, 'quiet.yaml');
    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-quiet').replace('MESSAGE', 'quiet'));
    const moved = await cli(['publish', file, '--alias', 'staging', '--no-activate'], cliEnv());
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /alias staging → revision 1/);
    assert.doesNotMatch(moved.stdout, /activated|is active/);
    const staging = await alias('cli-loop-quiet', 'staging');
    assert.deepEqual([staging?.revision, staging?.active], [1, false]);

    const latest = await cli(['publish', file, '--activate'], cliEnv());
    assert.equal(latest.code, 0, latest.stderr);
    assert.match(latest.stdout, /alias latest activated/);
    assert.equal((await alias('cli-loop-quiet', 'latest'))?.active, true);
    assert.equal((await alias('cli-loop-quiet', 'staging'))?.active, false);
  });

  it('run <key> executes on the server and waits for the end: its logs, then its outputs; --json prints the execution', async () => {
    writeFileSync(path.join(dir, 'greet.yaml'), GREET);
    assert.equal((await cli(['publish', path.join(dir, 'greet.yaml')], cliEnv())).code, 0);

    const run = await cli(['run', 'cli-loop-greet', '--inputs', '{"who":"ann"}'], cliEnv());
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /execution exec_\S+\n/);
    assert.match(run.stdout, /hello: hello ann/);
    assert.match(run.stdout, /completed outputs: \{"greeted":"ann"\}/);

    const json = await cli(['run', 'cli-loop-greet', '--inputs', '{"who":"bo"}', '--json'], cliEnv());
    assert.equal(json.code, 0, json.stderr);
    const execution = JSON.parse(json.stdout);
    assert.equal(execution.status, 'completed');
    assert.deepEqual(execution.outputs, { greeted: 'bo' });

    const failed = await cli(['run', 'cli-loop-greet', '--inputs', '{"who":"mallory"}'], cliEnv());
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /failed .*NOT_YOU/);
  });

  it('run <key> says what a waiting run waits on and how to signal it, then goes on to the end once signalled', async () => {
    writeFileSync(path.join(dir, 'ask.yaml'), ASK);
    assert.equal((await cli(['publish', path.join(dir, 'ask.yaml')], cliEnv())).code, 0);
    const child = spawnScript(CLI, {
      args: ['run', 'cli-loop-ask', '--inputs', '{"what":"lunch"}'],
      env: { NO_COLOR: '1', ...cliEnv() },
    });
    const done = collect(child, 90_000);
    // The command names the execution and the signal on stderr: answer it as a person would.
    const announced = new Promise<string>((resolve) => {
      let seen = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /step approval waits on signal approve: platform-workflow signal (exec_\S+) approve --payload/.exec(seen);
        if (match) resolve(match[1]);
      });
    });
    const executionId = await Promise.race([
      announced,
      done.then((ended) => Promise.reject(new Error(`run ended before it announced the wait: ${ended.stdout}${ended.stderr}`))),
    ]);
    const signal = await org.auth(env.t.request.post(`/workflows/executions/${executionId}/signals/approve`)).send({ by: 'ann' });
    assert.equal(signal.status, 200, JSON.stringify(signal.body));
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /hello: asking about lunch/);
    assert.match(result.stdout, /completed outputs: \{"approvedBy":"ann"\}/);
    // Announced once, however often it read the execution while it waited.
    assert.equal(result.stderr.match(/waits on signal approve/g)?.length, 1);
  });

  it('publish examples/ --stub acme-deploy=… publishes every example this server can run and skips the one whose plugin is a stand-in', async () => {
    const stub = ['--stub', 'acme-deploy=examples/approval/acme-deploy-stub.cjs'];
    const result = await cli(['publish', 'examples', ...stub], cliEnv());
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    for (const key of ['access-request', 'order-webhook', 'provision-user', 'sync-users'])
      assert.match(result.stdout, new RegExp(`published +examples/\\S+\\.yaml: ${key} revision 1 \\(created\\)`));
    assert.match(
      result.stdout,
      /skipped +examples\/approval\/deploy-approval\.yaml: deploy-approval needs plugin acme-deploy, which this server does not have \(stubbed with --stub\); nothing was sent/,
    );
    assert.match(result.stdout, /4 published, 0 unchanged, 0 refused, 1 skipped \(stubbed plugins this server does not have\)/);
    assert.doesNotMatch(result.stderr, /refused/);
    assert.equal((await org.auth(env.t.request.get('/workflows/definitions/deploy-approval'))).status, 404);
    assert.equal((await org.auth(env.t.request.get('/workflows/definitions/sync-users'))).status, 200);

    // Without --stub a missing plugin is the server's refusal, as for any other file: exit 1.
    const bare = await cli(['publish', 'examples'], cliEnv());
    assert.equal(bare.code, 1, bare.stdout);
    assert.match(
      bare.stderr,
      /refused +examples\/approval\/deploy-approval\.yaml: deploy-approval: 400 .*Unknown plugin type: acme-deploy/,
    );
    assert.match(bare.stdout, /0 published, 4 unchanged, 1 refused/);
  });

  it('run refuses options that do not fit where it runs: a local option with a key, --alias with a file', async () => {
    const remote = await cli(['run', 'cli-loop-greet', '--stub', 'log=x.js', '--vars', '{}'], cliEnv());
    assert.equal(remote.code, 2);
    assert.match(
      remote.stderr,
      /--stub, --vars: only a local run of a file takes these; "cli-loop-greet" is a workflow key, run on the server/,
    );
    const local = await cli(['run', path.join(dir, 'greet.yaml'), '--alias', 'live'], cliEnv());
    assert.equal(local.code, 2);
    assert.match(local.stderr, /--alias is for a run on the server \(run <key>\)/);
  });
});
