import assert from 'node:assert/strict';
import { Connection } from '@temporalio/client';
import { findRealTemporalCli, resolveTemporal } from '../../runtime/temporal';

describe('runtime/temporal resolveTemporal', function () {
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
});
