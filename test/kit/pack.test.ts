/**
 * The kit as a team's repository gets it: the tarball `npm pack` makes of this
 * repository (docs/authoring.md, "From your own repository"), unpacked as an
 * install puts it (node_modules/platform-api) in a folder of its own, its
 * `platform-workflow` bin and its `platform-api/kit` export used from there.
 * The built output (dist/) is what is packed: this test builds it when it is
 * missing (CI has built it already). Dependencies resolve from this
 * repository's node_modules (NODE_PATH), as an install would have them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/config';
import { findRealTemporalCli } from '../../startup/temporal';
import { ROOT } from '../support/process';

const BIN = 'dist/kit/cli/main.js';

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    encoding: 'utf8',
    timeout: 240_000,
    // eslint-disable-next-line no-restricted-properties -- passing the environment through to a child, not reading configuration
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const HELLO = `name: Hello
key: team-hello
path: /team
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: greet
    type: module
    pluginType: log
    dependsOn: [start]
    config: { message: "hello \${{ workflow.inputs.who }}" }
outputs:
  greeted: "\${{ workflow.inputs.who }}"
`;

describe('the packed kit (npm pack), run from a team repository', function () {
  this.timeout(300_000);

  it('holds the built kit and its bin; validate, run, require("platform-api/kit") and executor temporal work from the unpacked tarball', async () => {
    const node = process.execPath;
    if (!existsSync(path.join(ROOT, BIN))) {
      const built = run(node, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT });
      assert.equal(built.code, 0, built.stdout + built.stderr);
    }
    const work = mkdtempSync(path.join(tmpdir(), 'kit-pack-'));
    // --ignore-scripts: the prepack build is what made dist/ (above, or CI's build); this checks what is packed.
    const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
    assert.equal(packed.code, 0, packed.stderr);
    const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = new Set(tarball.files.map((file) => file.path));
    for (const wanted of [
      BIN,
      'dist/kit/index.js',
      'dist/kit/index.d.ts',
      'dist/kit/compat.js',
      'dist/kit/temporal/index.js',
      'dist/workflows/index.js',
      'dist/workflows/engine/index.js',
      'package.json',
    ])
      assert.ok(files.has(wanted), `${wanted} is packed`);
    // Only the built package: no sources, tests or benchmarks.
    assert.deepEqual(
      [...files].filter((file) => !file.startsWith('dist/') && !/^(package\.json|README\.md|LICENSE)$/.test(file)),
      [],
    );

    const team = path.join(work, 'team');
    const installed = path.join(team, 'node_modules', 'platform-api');
    mkdirSync(installed, { recursive: true });
    const untar = run('tar', ['xzf', path.join(work, tarball.filename), '-C', installed, '--strip-components=1'], { cwd: work });
    assert.equal(untar.code, 0, untar.stderr);
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.equal(manifest.bin['platform-workflow'], BIN);

    mkdirSync(path.join(team, 'flows'));
    writeFileSync(path.join(team, 'flows', 'hello.yaml'), HELLO);
    writeFileSync(path.join(team, 'flows', 'broken.yaml'), HELLO.replace('pluginType: log', 'pluginType: lgo'));
    const env = { NODE_PATH: path.join(ROOT, 'node_modules') };
    // npm links the bin and makes it executable on install; what it needs from the package is its shebang.
    const bin = path.join(installed, BIN);
    assert.match(readFileSync(bin, 'utf8'), /^#!\/usr\/bin\/env node\n/);

    const validate = run(node, [bin, 'validate', 'flows'], { cwd: team, env });
    assert.equal(validate.code, 1, validate.stdout + validate.stderr);
    assert.match(validate.stderr, /flows\/broken\.yaml:10:17 \/steps\/1\/pluginType: Unknown plugin type: lgo/);
    assert.match(validate.stdout, /ok +flows\/hello\.yaml\n[\s\S]*1 of 2 definitions valid/);

    const local = run(node, [bin, 'run', 'flows/hello.yaml', '--inputs', '{"who":"team"}', '--json'], { cwd: team, env });
    assert.equal(local.code, 0, local.stderr);
    assert.deepEqual(JSON.parse(local.stdout).outputs, { greeted: 'team' });

    writeFileSync(
      path.join(team, 'check.cjs'),
      `const { runWorkflow } = require('platform-api/kit');
runWorkflow({ file: 'flows/hello.yaml', inputs: { who: 'lib' } }).then((r) => console.log(JSON.stringify(r.outputs)));
`,
    );
    const library = run(node, ['check.cjs'], { cwd: team, env });
    assert.equal(library.code, 0, library.stderr);
    assert.equal(library.stdout.trim(), '{"greeted":"lib"}');

    // executor 'temporal' from the package: the workflow bundle is built from the packed dist/workflows, whose
    // imports webpack resolves through node_modules folders (not NODE_PATH), as an install lays them out.
    for (const dependency of readdirSync(path.join(ROOT, 'node_modules')))
      if (!dependency.startsWith('.'))
        symlinkSync(path.join(ROOT, 'node_modules', dependency), path.join(team, 'node_modules', dependency));
    const config = loadConfig();
    const cli = config.temporalAddress ? undefined : await findRealTemporalCli(config.temporalCliPath);
    assert.ok(config.temporalAddress || cli, 'a Temporal server or CLI for executor temporal');
    writeFileSync(
      path.join(team, 'durable.cjs'),
      `const { runWorkflowE2E } = require('platform-api/kit/compat');
runWorkflowE2E({ yamlPath: 'flows/hello.yaml', inputs: { who: 'durable' }, executor: 'temporal' })
  .then((r) => console.log(JSON.stringify([r.status, r.outputs, r.steps.greet.status])));
`,
    );
    const durable = run(node, ['durable.cjs'], { cwd: team, env: { ...env, ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}) } });
    assert.equal(durable.code, 0, durable.stderr);
    assert.equal(durable.stdout.trim(), '["completed",{"greeted":"durable"},"completed"]');
    rmSync(work, { recursive: true, force: true });
  });
});
