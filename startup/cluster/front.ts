/**
 * The small front of the production shape: one port that spreads requests over
 * the API replicas, round robin, as a load balancer would in front of
 * docker-compose's replicas.
 *
 * A replica that refuses the connection (stopped, killed, restarting) is
 * skipped for a moment and the request goes to the next one: a refused
 * connection never reached a replica, so trying again is safe even for a POST.
 * A replica that dies after taking a request leaves the outcome unknown; the
 * client gets a 502 problem and retries with its idempotency key. Request
 * bodies are read first (bounded), so a retry can send them again; responses
 * stream through (event streams included).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KEEP_ALIVE_TIMEOUT_MS } from '../http-server';

export interface FrontOptions {
  /** `host:port` of each API replica. */
  upstreams: string[];
  port: number;
  host?: string;
  /** Largest request body passed on (the API's own limit stays authoritative). */
  maxBodyBytes: number;
}

export interface Front {
  port: number;
  close(): Promise<void>;
}

/** How long a replica that refused a connection is passed over. */
const SKIP_REFUSING_MS = 1000;

export async function startFront(options: FrontOptions): Promise<Front> {
  const skipUntil = new Map<string, number>();
  let next = 0;
  const pick = (tried: Set<string>): string | undefined => {
    const now = Date.now();
    const candidates = options.upstreams.filter((u) => !tried.has(u));
    const live = candidates.filter((u) => (skipUntil.get(u) ?? 0) <= now);
    const pool = live.length > 0 ? live : candidates;
    if (pool.length === 0) return undefined;
    next = (next + 1) % pool.length;
    return pool[next];
  };

  const server = http.createServer((req, res) => {
    void readBody(req, options.maxBodyBytes).then(
      (body) => forward(req, res, body, new Set()),
      () => problem(res, 413, 'payload-too-large', `The request body exceeds ${options.maxBodyBytes} bytes.`),
    );
  });
  // As the replicas do: a client's idle keep-alive socket is closed by the client, not by the front at the moment
  // the client reuses it (Node's 5 s default raced clients' next requests: "socket hang up" under load).
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, tried: Set<string>): void => {
    const upstream = pick(tried);
    if (upstream === undefined) {
      problem(res, 503, 'no-api-replica', 'No API replica is accepting connections; retry shortly.');
      return;
    }
    tried.add(upstream);
    const [host, port] = splitHostPort(upstream);
    const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '', 'content-length': String(body.length) };
    if (body.length === 0 && req.headers['content-length'] === undefined) delete (headers as Record<string, unknown>)['content-length'];
    const outgoing = http.request({ host, port, method: req.method, path: req.url, headers }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
      upstreamRes.on('error', () => res.destroy());
    });
    let responded = false;
    outgoing.on('response', () => (responded = true));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (!responded && error.code === 'ECONNREFUSED') {
        skipUntil.set(upstream, Date.now() + SKIP_REFUSING_MS);
        forward(req, res, body, tried);
        return;
      }
      if (!res.headersSent)
        problem(res, 502, 'api-replica-failed', 'The API replica handling this request failed; retry with the same idempotency key.');
      else res.destroy();
    });
    // The client went away (an event stream closed): release the upstream request too.
    res.on('close', () => outgoing.destroy());
    outgoing.end(body);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        req.destroy();
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function problem(res: http.ServerResponse, status: number, type: string, detail: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/problem+json', ...(status === 503 ? { 'retry-after': '1' } : {}) });
  res.end(JSON.stringify({ type: `https://platform.local/problems/${type}`, title: http.STATUS_CODES[status], status, detail }));
}

function splitHostPort(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at), Number(address.slice(at + 1))];
}
