/**
 * The publish loop of the compatible engine's scripts, with `platform-workflow`
 * against a real app (PostgreSQL, Temporal, a worker): `publish FILE --alias
 * live` makes the revision, moves the alias and activates it in one command.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScript, type ScriptResult } from '../support/process';
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

describe('platform-workflow: the publish loop', function () {
  this.timeout(120_000);
  const { x, c } = useExecEnv();
  let server: Server;
  let url: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-loop-'));
  const env = () => ({ PLATFORM_API_URL: url, PLATFORM_API_TOKEN: c.token });
  const alias = async (key: string, name: string) => {
    const res = await c.auth(x.t.request.get(`/workflows/definitions/${key}/aliases/${name}`));
    return res.status === 200 ? (res.body as { revision: number; active: boolean; triggerStates: Record<string, unknown> }) : undefined;
  };
  const webhookUrl = (state: { triggerStates: Record<string, unknown> } | undefined) =>
    (state?.triggerStates.received as { runtimeMetadata?: { webhookUrl?: string } } | undefined)?.runtimeMetadata?.webhookUrl;

  before(async () => {
    server = createServer(x.t.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('publish --alias NAME moves the alias to the new revision and activates it; again, the active alias moves with its triggers', async () => {
    const file = path.join(dir, 'hook.yaml');
    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-hook').replace('MESSAGE', 'one'));
    const first = await cli(['publish', file, '--alias', 'live'], env());
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /published +\S*hook\.yaml: cli-loop-hook revision 1 \(created\)/);
    assert.match(first.stdout, /alias live → revision 1\n {2}alias live activated/);
    const live = await alias('cli-loop-hook', 'live');
    assert.deepEqual([live?.revision, live?.active], [1, true]);
    assert.equal((live?.triggerStates.received as { status?: string }).status, 'live');
    assert.match(String(webhookUrl(live)), /\/workflows\/webhooks\//);

    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-hook').replace('MESSAGE', 'two'));
    const second = await cli(['publish', file, '--alias', 'live'], env());
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /cli-loop-hook revision 2 \(new-revision\)/);
    assert.match(second.stdout, /alias live → revision 2\n {2}alias live is active \(its triggers are on revision 2\)/);
    const moved = await alias('cli-loop-hook', 'live');
    assert.deepEqual([moved?.revision, moved?.active], [2, true]);
    // Repointing the active alias moved its registrations to revision 2 (one registration, not a second activation).
    assert.equal((moved?.triggerStates.received as { status?: string }).status, 'live');
    assert.match(String(webhookUrl(moved)), /\/workflows\/webhooks\//);
  });

  it('publish --alias NAME --no-activate only moves the alias; --activate alone activates latest', async () => {
    const file = path.join(dir, 'quiet.yaml');
    writeFileSync(file, HOOK.replace('KEY', 'cli-loop-quiet').replace('MESSAGE', 'quiet'));
    const moved = await cli(['publish', file, '--alias', 'staging', '--no-activate'], env());
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /alias staging → revision 1/);
    assert.doesNotMatch(moved.stdout, /activated|is active/);
    const staging = await alias('cli-loop-quiet', 'staging');
    assert.deepEqual([staging?.revision, staging?.active], [1, false]);

    const latest = await cli(['publish', file, '--activate'], env());
    assert.equal(latest.code, 0, latest.stderr);
    assert.match(latest.stdout, /alias latest activated/);
    assert.equal((await alias('cli-loop-quiet', 'latest'))?.active, true);
    assert.equal((await alias('cli-loop-quiet', 'staging'))?.active, false);
  });
});
