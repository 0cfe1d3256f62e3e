/**
 * Egress end to end: a step cannot reach the worker's own host through one of
 * its network interface addresses (as a step once read the API's `/metrics`
 * that way), even though nothing else closes that address: the run fails with
 * HTTP_EGRESS_DENIED and nothing reaches the server listening there.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { chain, step, trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/** The first IPv4 address of a non-loopback interface of this machine, if it has one. */
const ownAddress = Object.values(networkInterfaces())
  .flatMap((entries) => entries ?? [])
  .find((entry) => !entry.internal && entry.family === 'IPv4')?.address;

describe('executions API: egress to the worker host itself', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: http.Server | undefined;
  let base = '';
  const hits: string[] = [];

  before(async function () {
    if (ownAddress === undefined) return this.skip();
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('process_cpu_seconds_total 1\n');
    });
    await new Promise<void>((resolve) => server!.listen(0, ownAddress, resolve));
    base = `http://${ownAddress}:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it("refuses a step calling the host's own interface address with HTTP_EGRESS_DENIED", async () => {
    await publish(env, org, {
      name: 'Own host',
      key: 'own-host',
      steps: chain(trigger(), step('scrape', 'http-request', { url: `${base}/metrics` })),
    });
    const done = await waitFor(env, org, await execute(env, org, 'own-host'), finished);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    const error = done.error as { type: string; message: string; stepId: string };
    assert.deepEqual([error.type, error.stepId], ['HTTP_EGRESS_DENIED', 'scrape'], error.message);
    assert.match(
      error.message,
      new RegExp(`^egress to ${ownAddress!.replace(/\./g, '\\.')} is not allowed: .*an address of this worker host`),
    );
    assert.deepEqual(hits, []);
  });
});
