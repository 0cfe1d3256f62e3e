/**
 * startup/child-watchdog.ts for real: a "service" process starts two long-running
 * children, guards one and forgets the other, and is killed with SIGKILL (no code
 * of its own runs). The guarded child ends; the forgotten one is left alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { isAlive } from '../../startup/orphan-process';
import { ROOT } from '../support/process';

const SERVICE = `
  const { spawn } = require('node:child_process');
  const { guardChild, forgetChild } = require(${JSON.stringify(path.join(ROOT, 'startup/child-watchdog.ts'))});
  const start = () => { const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }); child.unref(); return child.pid; };
  const guarded = start();
  const forgotten = start();
  guardChild(guarded, 'SIGTERM');
  guardChild(forgotten, 'SIGTERM');
  forgetChild(forgotten);
  console.log('children ' + guarded + ' ' + forgotten);
  setInterval(() => {}, 1000);
`;

const waitUntil = async (done: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return done();
};

describe('startup/child-watchdog', function () {
  this.timeout(60_000);

  it('ends the guarded children of a service killed with SIGKILL, and only those', async () => {
    const service = spawn(process.execPath, ['--import', 'tsx', '-e', SERVICE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    assert.ok(await waitUntil(() => /children \d+ \d+/.test(output), 30_000), output);
    const [guarded, forgotten] = /children (\d+) (\d+)/.exec(output)!.slice(1).map(Number);
    try {
      // Let the watchdog read its lines, then kill the service the way a V8 abort or the OOM killer does.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(isAlive(guarded) && isAlive(forgotten));
      service.kill('SIGKILL');
      assert.ok(await waitUntil(() => !isAlive(guarded), 15_000), 'the guarded child ended with its service');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(isAlive(forgotten), 'a forgotten child is left alone');
    } finally {
      for (const pid of [guarded, forgotten]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
