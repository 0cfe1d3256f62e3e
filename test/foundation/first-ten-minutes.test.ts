/**
 * A newcomer's first ten minutes, literally: a fresh clone, `npm start` (with the clone's
 * node_modules taken from this checkout: `npm install` is npm's business, not ours), the README's
 * curl walk-through pasted as it stands, and SIGTERM to the npm process. The clone has no
 * `.tools/`, so `npm start` must obtain the real Temporal CLI itself (a build with Go here, from
 * Go's caches once CI has built it) and never fall back to the stand-in.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../startup/temporal';
import { ROOT } from '../support/process';
import { testTemporalKind } from '../support/temporal';

/** The README's walk-through: the first sh block under its heading. */
function walkThrough(readme: string): string {
  const section = readme.slice(readme.indexOf('### A first walk-through with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has a walk-through block');
  return block[1];
}

/** Processes whose working folder or command line lies in `dir` (Linux /proc). */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cwd.startsWith(dir) || cmdline.includes(dir)) found.push(`${pid} ${cmdline.slice(0, 120)}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The environment of a newcomer's shell: none of the settings this test run was given. */
function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // eslint-disable-next-line no-restricted-properties -- a child's environment, not configuration
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(TEMPORAL_|DATABASE_URL|DATA_DIR|PORT|HOST|PUBLIC_BASE_URL|AUTH_|CONFIG_ENCRYPTION_KEY|LOG_|BOOTSTRAP_ADMINS)/.test(name))
      delete env[name];
  return { ...env, ...extra };
}

describe('the first ten minutes: a fresh clone, npm start, the README walk-through', function () {
  this.timeout(30 * 60_000);
  let clone: string;
  let npm: ChildProcess | undefined;
  let output = '';

  before(async function () {
    // The real server needs a CLI obtainable here (CI builds one with Go first); the stand-in lane has none.
    if ((await testTemporalKind()) !== 'cli') this.skip();
    clone = mkdtempSync(path.join(os.tmpdir(), 'platform-clone-'));
    // mkdtemp makes it 0700; a clone is 0755 as git makes it (as root, the embedded PostgreSQL runs as `postgres`, which must pass through).
    chmodSync(clone, 0o755);
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    assert.equal(existsSync(path.join(clone, '.tools')), false);
  });

  after(() => {
    if (npm?.exitCode === null) npm.kill('SIGKILL');
    if (!clone) return;
    for (const line of processesIn(clone)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    rmSync(clone, { recursive: true, force: true });
  });

  it('runs on the real Temporal server, prints the banner, completes the walk-through and stops on SIGTERM to npm', async () => {
    const port = await freePort();
    const env = newcomerEnv({ PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()) });
    npm = spawn('npm', ['start'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (output.includes('Platform API is running')) resolve();
        else if (npm!.exitCode !== null) reject(new Error(`npm start exited (${npm!.exitCode}):\n${output}`));
        else return;
        clearInterval(check);
      }, 200);
    });

    // The CLI was built once, with progress, and reports its real version; the stand-in was never used.
    assert.match(output, /Building the Temporal CLI v1\.5\.1/);
    assert.match(output, /Temporal +real dev server on [\d.:]+, temporal version 1\.5\.1 \(Server 1\.29\.1/);
    assert.doesNotMatch(output, /STAND-IN/);
    assert.ok(existsSync(path.join(clone, '.tools', 'temporal-cli-v1.5.1', 'temporal')));
    for (const label of ['API', 'Console', 'Temporal Web UI', 'Data', 'Token'])
      assert.match(output, new RegExp(`│ ${label} +\\S`), `the banner names ${label}`);

    // The walk-through, pasted as it stands (on this run's port).
    const script = walkThrough(readFileSync(path.join(clone, 'README.md'), 'utf8')).replaceAll('localhost:8080', `localhost:${port}`);
    const transcript = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: clone, env, encoding: 'utf8', timeout: 120_000 });
    assert.match(transcript, /"status":"completed"/, transcript);
    assert.match(transcript, /"greeting":"hello world"/, transcript);
    assert.match(transcript, /"status":"waiting"/, transcript);
    // The example's wait declares its answer: the approvals inbox lists it to the admin, its title rendered.
    assert.match(transcript, /"title":"Grant admin on payments-db to cy@example\.com\?"/, transcript);
    assert.match(transcript, /"outputs":\{"risk":"high","decision":"approved","decidedBy":"ann","expiresAt":"[^"]+"\}/, transcript);

    // SIGTERM to npm (a process manager, a closing terminal) stops everything it started.
    npm.kill('SIGTERM');
    await exited;
    const deadline = Date.now() + 60_000;
    let left = processesIn(clone);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      left = processesIn(clone);
    }
    assert.deepEqual(left, [], `still running after SIGTERM to npm:\n${output}`);
    assert.match(output, /"msg":"stopped"/);
  });
});
