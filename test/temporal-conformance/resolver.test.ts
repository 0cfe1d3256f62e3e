import assert from 'node:assert/strict';
import { Connection } from '@temporalio/client';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findRealTemporalCli, resolveTemporal } from '../../startup/temporal';
import { PINNED_CLI_VERSION, downloadTemporalCli, projectBuiltCli } from '../../startup/temporal-cli';

describe('startup/temporal resolveTemporal', function () {
  this.timeout(30_000);

  it('uses a configured address as is', async () => {
    const endpoint = await resolveTemporal({ address: 'temporal.example:7233', namespace: 'ns1' });
    assert.deepEqual([endpoint.kind, endpoint.address, endpoint.namespace], ['configured', 'temporal.example:7233', 'ns1']);
    await endpoint.stop();
  });

  it('refuses a CLI path that does not exist', async () => {
    await assert.rejects(resolveTemporal({ namespace: 'default', cliPath: '/nonexistent/temporal' }), /not found/);
  });

  it('starts a local server (the CLI when present, else the stand-in with a warning) and stops it', async () => {
    const warnings: string[] = [];
    const cli = await findRealTemporalCli();
    const endpoint = await resolveTemporal({ namespace: 'resolver-ns', download: false, onWarning: (message) => warnings.push(message) });
    try {
      assert.equal(endpoint.kind, cli ? 'cli' : 'stand-in');
      assert.equal(warnings.length, cli ? 0 : 1);
      if (!cli) assert.match(warnings[0], /will not survive a restart/);
      const connection = await Connection.connect({ address: endpoint.address });
      const described = await connection.workflowService.describeNamespace({ namespace: 'resolver-ns' });
      assert.equal(described.namespaceInfo?.name, 'resolver-ns');
      await connection.close();
    } finally {
      await endpoint.stop();
    }
    const after = await Connection.connect({ address: endpoint.address, connectTimeout: 500 }).then(
      async (connection) => {
        try {
          await connection.withDeadline(Date.now() + 1000, () => connection.workflowService.getSystemInfo({}));
          return 'still serving';
        } catch {
          return 'stopped';
        } finally {
          await connection.close();
        }
      },
      () => 'stopped',
    );
    assert.equal(after, 'stopped');
  });

  it('uses the stand-in when TEMPORAL_SERVER=stand-in, even where a CLI exists', async () => {
    const endpoint = await resolveTemporal({ namespace: 'default', server: 'stand-in', onWarning: () => undefined });
    try {
      assert.equal(endpoint.kind, 'stand-in');
    } finally {
      await endpoint.stop();
    }
  });

  it('finds the pinned CLI that scripts/install-temporal-cli builds, before other versions', () => {
    const tools = mkdtempSync(path.join(os.tmpdir(), 'tools-'));
    try {
      assert.equal(projectBuiltCli(tools), undefined);
      for (const version of ['v1.0.0', PINNED_CLI_VERSION]) {
        mkdirSync(path.join(tools, `temporal-cli-${version}`));
        writeFileSync(path.join(tools, `temporal-cli-${version}`, 'temporal'), '');
      }
      assert.equal(projectBuiltCli(tools), path.join(tools, `temporal-cli-${PINNED_CLI_VERSION}`, 'temporal'));
      rmSync(path.join(tools, `temporal-cli-${PINNED_CLI_VERSION}`), { recursive: true });
      assert.equal(projectBuiltCli(tools), path.join(tools, 'temporal-cli-v1.0.0', 'temporal'));
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it('falls through within seconds when the download site cannot be reached', async () => {
    const started = Date.now();
    assert.equal(await downloadTemporalCli({ host: 'temporal.download.invalid', probeTimeoutMs: 2000 }), undefined);
    assert.ok(Date.now() - started < 3000);
  });
});
