/**
 * startup/parent-watch.ts for real: a parent process starts a child that watches it, the
 * parent is SIGKILLed (as npm is by a process manager), and the child notices and stops.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { isAlive } from '../../startup/orphan-process';
import { watchParent } from '../../startup/parent-watch';
import { ROOT } from '../support/process';

const WATCHER = `
  const { watchParent } = require(${JSON.stringify(path.join(ROOT, 'startup/parent-watch.ts'))});
  watchParent(() => { console.log('parent gone'); process.exit(0); }, 100);
  console.log('watching ' + process.pid);
  setInterval(() => {}, 1000);
`;

describe('startup/parent-watch', function () {
  this.timeout(60_000);

  it('stops a child whose parent was killed without passing a signal on', async () => {
    // The parent: a shell that starts the watcher and waits, as npm waits for `npm start`'s node.
    const parent = spawn('sh', ['-c', `"${process.execPath}" --import tsx -e '${WATCHER.replace(/'/g, "'\\''")}' & wait`], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const childPid = await new Promise<number>((resolve) => {
      const check = setInterval(() => {
        const match = /watching (\d+)/.exec(output);
        if (!match) return;
        clearInterval(check);
        resolve(Number(match[1]));
      }, 50);
    });
    parent.kill('SIGKILL');
    const deadline = Date.now() + 30_000;
    while (isAlive(childPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const stillAlive = isAlive(childPid);
    if (stillAlive) process.kill(childPid, 'SIGKILL');
    assert.equal(stillAlive, false, 'the child outlived its parent');
  });

  it('stays quiet while the parent lives', async () => {
    // Mocha's parent is alive: the watch never fires within a few checks.
    let fired = false;
    const stop = watchParent(() => (fired = true), 10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop();
    assert.equal(fired, false);
  });
});
