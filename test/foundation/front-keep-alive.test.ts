/**
 * The production shape's front (startup/cluster/front.ts) keeps a client's idle keep-alive connection open as
 * long as the API replicas do (KEEP_ALIVE_TIMEOUT_MS), longer than Node's 5 s default: a client that comes back
 * after more than 5 s reuses its socket instead of racing the front's close of it (the scale-out bench's
 * "socket hang up" on Node 20, whose server has no keep-alive grace of its own).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFront, type Front } from '../../startup/cluster/front';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../startup/http-server';

function get(port: number, agent: http.Agent): Promise<{ status: number; body: string; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), reusedSocket: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('the front keeps idle client connections', function () {
  this.timeout(30_000);
  let upstream: http.Server;
  let front: Front;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    upstream = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    front = await startFront({ upstreams: [`127.0.0.1:${port}`], port: 0, maxBodyBytes: 1024 });
  });

  after(async () => {
    agent.destroy();
    await front?.close();
    upstream?.closeAllConnections();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it('answers a request sent on the same socket after 7 s idle, past the 5 s default of Node', async () => {
    assert.ok(KEEP_ALIVE_TIMEOUT_MS > 7_000);
    const first = await get(front.port, agent);
    assert.deepEqual([first.status, first.body], [200, 'pong']);
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const second = await get(front.port, agent);
    assert.deepEqual([second.status, second.body], [200, 'pong']);
    assert.equal(second.reusedSocket, true, 'the front closed the idle connection (Node 5 s default)');
  });
});
