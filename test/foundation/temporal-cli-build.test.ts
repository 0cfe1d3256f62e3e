/**
 * startup/temporal-cli.ts buildTemporalCli, with scripts standing in for scripts/install-temporal-cli
 * (the real build runs in first-ten-minutes.test.ts): progress lines reach the caller, the path the
 * script prints last is the binary, and a stop ends the whole build, its children included.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../../startup/orphan-process';
import { buildTemporalCli } from '../../startup/temporal-cli';

describe('startup/temporal-cli buildTemporalCli', function () {
  this.timeout(30_000);
  let dir: string;
  before(function () {
    // The build needs Go on PATH (it checks before running the script); CI has it.
    dir = mkdtempSync(path.join(os.tmpdir(), 'cli-build-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, body: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  it('forwards the build’s own progress lines (not Go’s module downloads) and answers the binary it printed last', async function () {
    const binary = path.join(dir, 'temporal');
    writeFileSync(binary, '');
    const lines: string[] = [];
    const built = await buildTemporalCli({
      script: script(
        'ok',
        `echo "Building the Temporal CLI" >&2\necho "go: downloading x v1" >&2\necho "  ... still building (20 s)" >&2\necho "${binary}"`,
      ),
      onProgress: (line) => lines.push(line),
    });
    if (built === undefined && lines.length === 0) this.skip(); // no Go on this machine: nothing was run
    assert.equal(built, binary);
    assert.deepEqual(lines, ['Building the Temporal CLI', '... still building (20 s)']);
  });

  it('answers undefined when the build fails', async function () {
    const built = await buildTemporalCli({ script: script('fails', 'echo "could not download" >&2\nexit 1') });
    assert.equal(built, undefined);
  });

  it('stops the whole build when asked to (the script and what it started)', async function () {
    const pidFile = path.join(dir, 'child.pid');
    const controller = new AbortController();
    const lines: string[] = [];
    const building = buildTemporalCli({
      script: script('slow', `sleep 300 &\necho $! > "${pidFile}"\necho started >&2\nwait`),
      signal: controller.signal,
      onProgress: (line) => {
        lines.push(line);
        if (line === 'started') controller.abort(new Error('stop'));
      },
    });
    const outcome = await building.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if ('value' in outcome && outcome.value === undefined && lines.length === 0) this.skip(); // no Go: nothing was run
    assert.ok('error' in outcome, 'the aborted build rejects');
    const child = Number(readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 50 && isAlive(child); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(isAlive(child), false, 'the build’s own child was stopped too');
  });
});
