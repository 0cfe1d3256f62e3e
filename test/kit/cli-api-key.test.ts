/**
 * `platform-workflow` with only PLATFORM_API_KEY: it exchanges the key at
 * POST /token, sends the token it got, exchanges again once when the server
 * says the token expired (401), and on a refused key exits 4 naming the
 * setting, never the key. Against a small fake server that records requests.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runScript } from '../support/process';

const KEY = 'npk_abcdefgh_0123456789012345678901234567890123456789abc';

describe('platform-workflow with an API key', function () {
  this.timeout(60_000);
  let server: Server;
  let url: string;
  let seen: Array<{ method: string; url: string; authorization?: string; body: string }> = [];
  /** Per exchange, the token answered; `expireFirst`: the first token is refused as expired. */
  let mode: 'ok' | 'expireFirst' | 'refuseKey' = 'ok';
  let exchanges = 0;

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString())).on('end', () => resolve(body));
    });

  before(async () => {
    server = createServer((req, res) => {
      void read(req).then((body) => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
        res.setHeader('Content-Type', 'application/json');
        if (req.url === '/token') {
          if (mode === 'refuseKey' || JSON.parse(body).api_key !== KEY) {
            res.statusCode = 401;
            return res.end(
              JSON.stringify({
                statusCode: 401,
                error: 'Unauthorized',
                message: 'The API key is unknown, revoked or expired.',
                code: 'API_KEY.INVALID',
              }),
            );
          }
          exchanges += 1;
          return res.end(JSON.stringify({ access_token: `token-${exchanges}`, refresh_token: null, organization_id: 1, expires_in: 900 }));
        }
        if (mode === 'expireFirst' && req.headers.authorization === 'Bearer token-1') {
          res.statusCode = 401;
          return res.end(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', detail: 'The bearer token has expired.' }));
        }
        res.end(JSON.stringify({ data: [{ name: 'REGION', value: 'eu', secret: false, path: '/' }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    seen = [];
    exchanges = 0;
  });

  const cli = (env: Record<string, string>) =>
    runScript('kit/cli/main.ts', {
      args: ['config', 'list', '--path', '/'],
      env: { NO_COLOR: '1', PLATFORM_API_URL: url, PLATFORM_API_TOKEN: '', PLATFORM_API_KEY: KEY, ...env },
      timeoutMs: 30_000,
    });

  it('exchanges the key, then calls with the token', async () => {
    mode = 'ok';
    const result = await cli({});
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      seen.map((r) => [r.method, r.url.split('?')[0], r.authorization]),
      [
        ['POST', '/token', undefined],
        ['GET', '/workflows/config', 'Bearer token-1'],
      ],
    );
  });

  it('exchanges again once when the token has expired', async () => {
    mode = 'expireFirst';
    const result = await cli({});
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      seen.map((r) => r.authorization ?? r.url),
      ['/token', 'Bearer token-1', '/token', 'Bearer token-2'],
    );
  });

  it('a refused key exits 4 and names the setting, not the key; a given token wins over the key', async () => {
    mode = 'refuseKey';
    const refused = await cli({});
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /POST \/token: 401 .*PLATFORM_API_KEY/);
    assert.ok(!`${refused.stdout}${refused.stderr}`.includes(KEY.slice(13)));
    mode = 'ok';
    seen = [];
    assert.equal((await cli({ PLATFORM_API_TOKEN: 'given' })).code, 0);
    assert.deepEqual(
      seen.map((r) => r.authorization),
      ['Bearer given'],
    );
  });
});
