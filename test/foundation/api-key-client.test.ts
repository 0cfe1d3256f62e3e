/**
 * API keys end to end, on `npm start` with the real Temporal CLI dev server: the
 * compatible platform's style of client (a shell script: curl, POST /token, config
 * entries, a publish and a run with the token it got) and `platform-workflow publish`
 * with PLATFORM_API_KEY run unchanged; a narrowed key is refused a write; a revoked
 * key and its tokens are refused. The canary: no key value appears in any answer
 * after its creation, in the server's log output (at debug level) or in the Temporal
 * history of the run started with a key's token. Skipped where no CLI is found.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../startup/temporal';
import { runScript, startListening, type ListeningService } from '../support/process';
import { testTemporalKind } from '../support/temporal';

const SCRIPT = path.resolve('test/fixtures/clients/config-entries.sh');

function sh(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // eslint-disable-next-line no-restricted-properties -- passing the environment (PATH for curl and node) to a child, not reading configuration
    execFile('bash', [file], { env: { ...process.env, ...env }, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('API keys: a client in the compatible platform’s style, on the real server', function () {
  this.timeout(240_000);
  let dataDir: string;
  let base: string;
  let adminToken: string;
  let service: ListeningService | undefined;
  /** Every answer the tests read after a key's creation (the creation answers themselves excluded). */
  const answers: string[] = [];

  before(async function () {
    if ((await testTemporalKind()) !== 'cli') this.skip();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-api-keys-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = await startListening(
      'bin/start.ts',
      {
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        TEMPORAL_UI_PORT: String(await freePort()),
        TEMPORAL_SERVER: 'cli',
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
      },
      90_000,
    );
    adminToken = (await runScript('bin/token.ts', { env: { DATA_DIR: dataDir }, args: ['--user', '1', '--org', '1'] })).stdout.trim();
  });

  after(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, route: string, token: string | undefined, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
  };
  const createKey = async (name: string, role: string) => {
    const created = await call('POST', '/api_key', adminToken, { name, grants: [{ nrn: 'organization=1', role_slug: role }] });
    assert.equal(created.status, 201, created.text);
    return { id: created.body.id as number, value: created.body.api_key as string };
  };
  const exchange = async (value: string) => {
    const answer = await call('POST', '/token', undefined, { apikey: value });
    answers.push(answer.text);
    return answer;
  };

  it('exchanges, writes config, publishes and runs; narrows; revokes; and never shows a key again', async () => {
    const ci = await createKey('ci', 'admin');
    const reader = await createKey('dashboard', 'viewer');
    const keys = [ci.value, reader.value];

    // The shell client, unchanged but for its URL and key.
    const responses = path.join(dataDir, 'responses.jsonl');
    const workflowFile = path.join(dataDir, 'workflow.json');
    await writeFile(
      workflowFile,
      JSON.stringify({
        name: 'CI setup check',
        key: 'ci-setup-check',
        path: '/ci-setup',
        steps: {
          start: { type: 'trigger', pluginType: 'manual' },
          note: { type: 'module', pluginType: 'log', config: { message: 'region ${{ vars.REGION }}, tier ${{ vars.TIER }}' } },
        },
        connections: [{ from: 'start', to: 'note' }],
      }),
    );
    const run = await sh(SCRIPT, {
      PLATFORM_API_URL: base,
      PLATFORM_API_KEY: ci.value,
      RESPONSES_FILE: responses,
      WORKFLOW_FILE: workflowFile,
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^organization 1$/m);
    assert.equal([...run.stdout.matchAll(/^config entry /gm)].length, 4, run.stdout);
    assert.match(run.stdout, /^published ci-setup-check$/m);
    assert.match(run.stdout, /^status completed$/m);
    const executionId = /^execution (\S+)$/m.exec(run.stdout)![1];
    answers.push(run.stdout, run.stderr, await readFile(responses, 'utf8'));
    const entries = await call('GET', '/workflows/config?path=/ci-setup', adminToken);
    assert.equal(entries.status, 200, entries.text);
    answers.push(entries.text);
    const steps = await call('GET', `/workflows/executions/${executionId}/logs`, adminToken);
    answers.push(steps.text);
    assert.match(steps.text, /region eu-west-1, tier gold/);

    // The command line with only PLATFORM_API_KEY: a CI job publishing a workflow folder.
    const folder = path.join(dataDir, 'flows');
    await mkdir(folder);
    for (const key of ['ci-one', 'ci-two']) {
      await writeFile(
        path.join(folder, `${key}.yaml`),
        `name: ${key}\nkey: ${key}\nsteps:\n  - id: start\n    type: trigger\n    pluginType: manual\n  - id: note\n    type: module\n    pluginType: log\n    dependsOn: [start]\n    config: { message: hi }\n`,
      );
    }
    const cli = await runScript('kit/cli/main.ts', {
      args: ['publish', folder],
      env: { NO_COLOR: '1', PLATFORM_API_URL: base, PLATFORM_API_TOKEN: '', PLATFORM_API_KEY: ci.value },
      timeoutMs: 60_000,
    });
    assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
    assert.match(cli.stdout, /ci-one revision 1 \(created\)/);
    assert.match(cli.stdout, /ci-two revision 1 \(created\)/);
    answers.push(cli.stdout, cli.stderr);

    // The viewer key reads, and is refused a write its owner (an administrator) could make.
    const readerToken = (await exchange(reader.value)).body.access_token as string;
    const read = await call('GET', '/workflows/definitions/ci-one', readerToken);
    assert.equal(read.status, 200, read.text);
    const write = await call('POST', '/workflows/config', readerToken, { name: 'NOPE', value: 'x', path: '/ci-setup' });
    assert.equal(write.status, 403, write.text);
    answers.push(read.text, write.text);

    // Lists and reads of the keys show them masked.
    for (const route of ['/api_key', `/api_key/${ci.id}`]) answers.push((await call('GET', route, adminToken)).text);

    // Revoked: the key and the token it gave are refused at once.
    const ciToken = (await exchange(ci.value)).body.access_token as string;
    assert.equal((await call('DELETE', `/api_key/${ci.id}`, adminToken)).status, 204);
    const again = await exchange(ci.value);
    assert.equal(again.status, 401, again.text);
    assert.equal(again.body.code, 'API_KEY.INVALID');
    const late = await call('GET', '/workflows/definitions/ci-one', ciToken);
    assert.equal(late.status, 401, late.text);
    answers.push(late.text);

    // The canary: neither key, nor the secret part of either, anywhere after its creation.
    const history = await temporalHistory(service!.output(), executionId);
    assert.ok(history.includes('region ${{ vars.REGION }}'), 'the history read is the run’s (its definition is in the input)');
    assert.match(service!.output(), /"\/token"|\/token/, 'the server log has the exchanges’ request lines');
    const places = { answers: answers.join('\n'), 'server log': service!.output(), 'Temporal history': history };
    for (const key of keys) {
      for (const [where, text] of Object.entries(places)) {
        assert.ok(!text.includes(key), `the key appears in the ${where}`);
        assert.ok(!text.includes(key.slice(13)), `the key's secret part appears in the ${where}`);
      }
    }
  });
});

/** The whole history of the run, as JSON text, read from the Temporal server the service started (named in its log). */
async function temporalHistory(log: string, workflowId: string): Promise<string> {
  const line = log.split('\n').find((l) => l.includes('"Temporal resolved"'));
  const address = (JSON.parse(line!) as { address: string }).address;
  const connection = await Connection.connect({ address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    // Payload bytes come out of the protobuf objects as base64 (`data`, `encoding`): read them as the text they hold.
    const raw = JSON.stringify(history);
    const decoded = JSON.stringify(history, (key, value: unknown) =>
      (key === 'data' || key === 'encoding') && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    return `${raw}\n${decoded}`;
  } finally {
    await connection.close();
  }
}
