/** Listening and graceful closing of the HTTP server. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const closing = new WeakSet<http.Server>();

/**
 * How long a server keeps an idle keep-alive connection: longer than common load-balancer and client
 * idle timeouts, so they close first and never send a request on a socket the server is closing (Node's
 * own 5 s default loses that race under load: the client sees "socket hang up").
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function listen(handler: http.RequestListener, port: number, host: string): Promise<http.Server> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    response.once('finish', () => {
      // While closing, a keep-alive connection whose last request just finished is closed at once
      // instead of idling until the client gives up on it.
      if (closing.has(server)) setImmediate(() => server.closeIdleConnections());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/**
 * Stops accepting connections, lets in-flight requests finish, closes idle
 * keep-alive connections at once (and busy ones as soon as they go idle), and
 * cuts whatever is left after the grace time.
 */
export function closeGracefully(server: http.Server, graceMs: number): Promise<void> {
  closing.add(server);
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
