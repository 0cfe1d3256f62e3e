/**
 * `npm start` as an operator runs it, on the real Temporal CLI dev server: the Web UI
 * serves the executions the API starts (each execution links to it), the start-up log names
 * the server, and a run waiting on a signal survives a restart of the whole process.
 * Skipped where no CLI is found (the stand-in cannot survive a restart; CI builds the CLI).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { freePort } from '../../startup/temporal';
import { firstTaskStartedWithTheStart } from '../support/eager-start';
import { runScript, startListening, type ListeningService } from '../support/process';
import { testTemporalKind } from '../support/temporal';

type Started = ListeningService;

/** Starts `bin/start.ts` and resolves once the API listens. */
async function startService(env: Record<string, string>): Promise<Started> {
  return startListening('bin/start.ts', env, 60_000);
}

async function stop(service: Started): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exited;
}

describe('npm start on the real Temporal dev server', function () {
  this.timeout(180_000);
  let dataDir: string;
  let env: Record<string, string>;
  let base: string;
  let uiPort: number;
  let token: string;
  let service: Started | undefined;

  before(async function () {
    if ((await testTemporalKind()) !== 'cli') this.skip();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-start-'));
    const port = await freePort();
    uiPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TEMPORAL_UI_PORT: String(uiPort),
      TEMPORAL_SERVER: 'cli',
      TEMPORAL_RETENTION_DAYS: '9',
    };
    service = await startService(env);
    const minted = await runScript('bin/token.ts', { env: { DATA_DIR: dataDir }, args: ['--user', '1', '--org', '1'] });
    token = minted.stdout.trim();
  });

  after(async () => {
    if (service && service.child.exitCode === null) await stop(service);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('serves the Web UI with the runs the API starts, and a waiting run survives a restart', async () => {
    const ready = await fetch(`${base}/ready`).then((r) => r.json() as Promise<{ checks: { temporal: string } }>);
    assert.equal(ready.checks.temporal, 'ok');
    // Which Temporal answers is the operator's business: the start-up log names it, /ready does not.
    assert.match(service?.output() ?? '', /"kind":"cli"[^\n]*"Temporal resolved"/);

    const published = await api('POST', '/workflows/definitions', {
      name: 'Waiter',
      key: 'waiter',
      steps: [
        { id: 'start', type: 'trigger', plugin_type: 'manual', config: {} },
        { id: 'wait', type: 'wait', plugin_type: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] },
      ],
      outputs: { got: '${{ steps.wait.outputs.payload }}' },
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const started = await api('POST', '/workflows/definitions/waiter/execute', {});
    assert.equal(started.status, 202);
    const executionId = String(started.body.executionId);

    const read = await api('GET', `/workflows/executions/${executionId}`);
    const uiUrl = String((read.body.temporal as { uiUrl: string }).uiUrl);
    assert.ok(uiUrl.startsWith(`http://127.0.0.1:${uiPort}/namespaces/default/workflows/${executionId}`), uiUrl);
    // The UI's own API (what its pages read) knows the run.
    const inUi = await fetch(`http://127.0.0.1:${uiPort}/api/v1/namespaces/default/workflows/${executionId}`);
    assert.equal(inUi.status, 200);

    assert.equal(await stop(service!), 0);
    service = await startService(env);

    let pending: Array<{ signalNames: string[] }> = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = (await api('GET', `/workflows/executions/${executionId}/pending-signals`)).body.data as typeof pending;
      if (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(
      pending.map((wait) => wait.signalNames),
      [['go']],
    );
    const delivered = await api('POST', `/workflows/executions/${executionId}/signals/go`, { payload: { after: 'restart' } });
    assert.equal(delivered.status, 200, JSON.stringify(delivered.body));
    let status = '';
    let outputs: unknown;
    for (let i = 0; i < 100 && status !== 'completed'; i++) {
      const body = (await api('GET', `/workflows/executions/${executionId}`)).body;
      status = String(body.status);
      outputs = body.outputs;
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 'completed');
    assert.deepEqual(outputs, { got: { payload: { after: 'restart' } } });
  });

  /** A client of the Temporal the service resolved (its address from the start-up log). */
  const withTemporal = async <T>(use: (client: Client) => Promise<T>): Promise<T> => {
    const address = /"address":"([^"]+)"[^\n]*"Temporal resolved"/.exec(service?.output() ?? '')?.[1];
    assert.ok(address, 'the start-up log names the Temporal address');
    const connection = await Connection.connect({ address });
    try {
      return await use(new Client({ connection }));
    } finally {
      await connection.close();
    }
  };

  it("sets the namespace's retention to TEMPORAL_RETENTION_DAYS at start", async () => {
    await withTemporal(async (client) => {
      const described = await client.workflowService.describeNamespace({ namespace: 'default' });
      assert.equal(optionalTsToMs(described.config?.workflowExecutionRetentionTtl), 9 * 86_400_000);
    });
  });

  it("starts runs eagerly: the first workflow task goes to the process's own worker in the start's reply", async () => {
    const started = await api('POST', '/workflows/definitions/waiter/execute', {});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const executionId = String(started.body.executionId);
    assert.equal(await withTemporal((client) => firstTaskStartedWithTheStart(client, executionId)), true);
    const cancelled = await api('POST', `/workflows/executions/${executionId}/cancel`, {});
    assert.equal(cancelled.status, 202, JSON.stringify(cancelled.body));
  });
});
