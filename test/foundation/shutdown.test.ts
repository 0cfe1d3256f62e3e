import assert from 'node:assert/strict';
import http from 'node:http';
import { closeGracefully, listen, portOf } from '../../startup/http-server';
import { createTestApp } from '../support/app';
import { probeRoutes } from '../support/probe-routes';

function get(port: number, path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

describe('graceful HTTP shutdown', () => {
  it('stops accepting connections but finishes the request in flight', async () => {
    let release!: () => void;
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const t = createTestApp({
      routes: probeRoutes({
        waitFor: () => {
          arrived();
          return gate;
        },
      }),
    });
    const token = await t.token({ organizationId: '5' });
    const server = await listen(t.app.koa.callback(), 0, '127.0.0.1');
    const port = portOf(server);

    const inFlight = get(port, '/workflows/probe/3?slow=true', token);
    await inHandler;
    const closed = closeGracefully(server, 10_000);
    let closedYet = false;
    void closed.then(() => (closedYet = true));

    // New connections are refused while the old request is still being served.
    await assert.rejects(get(port, '/health', token), /ECONNREFUSED/);
    assert.equal(closedYet, false);

    release();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { id: 3, organizationId: '5' });
    await closed;
  });

  it('cuts requests that outlive the grace time', async () => {
    const t = createTestApp({ routes: probeRoutes({ waitFor: () => new Promise(() => undefined) }) });
    const token = await t.token({ organizationId: '5' });
    const server = await listen(t.app.koa.callback(), 0, '127.0.0.1');
    const stuck = get(portOf(server), '/workflows/probe/3?slow=true', token).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await closeGracefully(server, 300);
    assert.ok(Date.now() - started < 3000);
    assert.ok((await stuck) instanceof Error);
  });
});
