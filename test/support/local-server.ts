/**
 * A local HTTP server for the length of a mocha `describe`, on 127.0.0.1 (which
 * tests' egress opens explicitly: TEST_EGRESS): `before` starts it, `after`
 * closes it and its connections. Call inside `describe`; `base` is filled once
 * it listens.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function useLocalServer(handler: http.RequestListener): { readonly base: string } {
  let server: http.Server | undefined;
  const where = { base: '' };
  before(async () => {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    where.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return where;
}
