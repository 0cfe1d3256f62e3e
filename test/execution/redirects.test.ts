import assert from 'node:assert/strict';
import type http from 'node:http';
import { Headers } from 'undici';
import { RedirectRefused, SAFE_CROSS_ORIGIN_HEADERS, redirectedRequest, type HopRequest } from '../../activities/egress/redirects';
import { codeExec } from '../../activities/plugins/code-exec';
import { httpRequest } from '../../activities/plugins/http-request';
import { loadOperatorPlugins, type OperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import { operatorPluginRun } from '../../activities/plugins/operator/run-operator-plugin';
import { paginatedFetch } from '../../activities/plugins/paginated-fetch';
import { useLocalServer } from '../support/local-server';
import { failure, pluginContext } from '../support/plugin-calls';
import { ROOT } from '../support/process';

/**
 * Redirects carry credentials only within their origin, for every plugin that
 * fetches (one rule, activities/egress/redirects.ts): two local servers on two
 * ports are two origins, and the second one records what reached it.
 */

interface Received {
  server: 'a' | 'b';
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];

/** `/redirect?status=307&to=URL` answers that redirect; anything else is recorded and answers an empty page. */
const handler =
  (server: 'a' | 'b'): http.RequestListener =>
  (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect')
        return void res.writeHead(Number(url.searchParams.get('status')), { location: url.searchParams.get('to') ?? '/' }).end();
      received.push({ server, path: url.pathname, method: req.method ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [] }));
    });
  };

/** What a step sends: credentials of several kinds, and headers that describe the request. */
const SENT = {
  Authorization: 'Bearer first-origin-token',
  Cookie: 'session=first-origin',
  'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0',
  'X-Api-Key': 'first-origin-key',
  Accept: 'application/json',
  'Content-Type': 'text/plain',
};
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'];

interface Request {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

describe('egress: redirects keep credentials to their origin, in every plugin that fetches', function () {
  this.timeout(60_000);
  const a = useLocalServer(handler('a'));
  const b = useLocalServer(handler('b'));
  let plugins: OperatorPlugins;

  before(async () => {
    plugins = await loadOperatorPlugins(['./test/fixtures/plugins/fetch-relay.ts'], ROOT);
  });
  beforeEach(() => (received.length = 0));

  const FETCHERS: Array<[string, (request: Request) => Promise<unknown>]> = [
    ['http-request', (request) => httpRequest(pluginContext({ ...request }).ctx)],
    ['paginated-fetch', (request) => paginatedFetch(pluginContext({ ...request, dataPath: 'data' }).ctx)],
    [
      "an operator plugin's fetch",
      (request) => {
        const { ctx } = pluginContext({ ...request }, { pluginType: 'fetch-relay', pluginVersion: '1.0.0' });
        return operatorPluginRun(plugins, ctx.call)!(ctx);
      },
    ],
    [
      "code-exec's fetch",
      (request) => {
        const code = `const r = await fetch(${JSON.stringify(request.url)}, ${JSON.stringify(request)}); await r.text(); return {};`;
        return codeExec(pluginContext({ code, network: { allowedHosts: ['127.0.0.1'] } }).ctx);
      },
    ],
  ];

  const via = (status: number, target: string) => `${a.base}/redirect?status=${status}&to=${encodeURIComponent(target)}`;
  const arrived = () => {
    assert.equal(received.length, 1, JSON.stringify(received));
    return received[0];
  };

  for (const [name, send] of FETCHERS) {
    describe(name, () => {
      for (const status of [307, 308])
        it(`${status} to another origin: method and body kept, Authorization, Cookie and the step's own headers dropped`, async () => {
          await send({ url: via(status, `${b.base}/echo`), method: 'POST', headers: SENT, body: 'payload' });
          const target = arrived();
          assert.deepEqual([target.server, target.method, target.body], ['b', 'POST', 'payload']);
          for (const header of CREDENTIALS) assert.equal(target.headers[header], undefined, `${header} crossed origins`);
          assert.equal(target.headers.accept, 'application/json');
          assert.equal(target.headers['content-type'], 'text/plain');
        });

      it('307 within the origin keeps every header and the body', async () => {
        await send({ url: via(307, `${a.base}/echo`), method: 'POST', headers: SENT, body: 'payload' });
        const target = arrived();
        assert.deepEqual([target.server, target.method, target.body], ['a', 'POST', 'payload']);
        for (const [header, value] of Object.entries(SENT)) assert.equal(target.headers[header.toLowerCase()], value, header);
      });

      for (const [status, method] of [
        [301, 'POST'],
        [302, 'POST'],
        [303, 'POST'],
        [303, 'PUT'],
      ] as const)
        it(`${status} after ${method} becomes a GET without a body or its content headers`, async () => {
          await send({ url: via(status, `${a.base}/echo`), method, headers: SENT, body: 'payload' });
          const target = arrived();
          assert.deepEqual([target.method, target.body], ['GET', '']);
          assert.equal(target.headers['content-type'], undefined);
          assert.equal(target.headers['content-length'], undefined);
          assert.equal(target.headers.authorization, SENT.Authorization, 'same origin: credentials stay');
        });

      it('302 after GET to another origin drops the credentials too', async () => {
        await send({ url: via(302, `${b.base}/echo`), method: 'GET', headers: SENT });
        const target = arrived();
        assert.deepEqual([target.server, target.method], ['b', 'GET']);
        for (const header of CREDENTIALS) assert.equal(target.headers[header], undefined, `${header} crossed origins`);
      });
    });
  }

  it('http-request refuses a Location that is not http(s), and stops after 10 redirects, without retries', async () => {
    const elsewhere = await failure(httpRequest(pluginContext({ url: via(302, 'ftp://127.0.0.1/file') }).ctx));
    assert.deepEqual([elsewhere.type, elsewhere.nonRetryable], ['HTTP_REDIRECT_REFUSED', true], elsewhere.message);
    assert.equal(elsewhere.message, 'redirected to a non-http(s) Location (ftp:): not followed');
    const redirects = (count: number) => {
      let url = `${a.base}/echo`;
      for (let i = 0; i < count; i++) url = via(302, url);
      return url;
    };
    const tenth = await httpRequest(pluginContext({ url: redirects(10) }).ctx);
    assert.equal((tenth.outputs as { statusCode: number }).statusCode, 200, 'ten redirects are followed');
    received.length = 0;
    const eleventh = await failure(httpRequest(pluginContext({ url: redirects(11) }).ctx));
    assert.deepEqual([eleventh.type, eleventh.nonRetryable], ['HTTP_TOO_MANY_REDIRECTS', true], eleventh.message);
    assert.deepEqual(received, [], 'the 11th redirect is not followed');
  });

  describe('the rule', () => {
    const request = (body?: HopRequest['body']): HopRequest => ({ method: 'POST', headers: new Headers(SENT), body });
    const hop = (from: string, to: string, status: number, sent = request('payload')) =>
      redirectedRequest(new URL(from), new URL(to), status, sent);
    const refused = (reason: RedirectRefused['reason']) => (error: unknown) => error instanceof RedirectRefused && error.reason === reason;

    it('refuses https to http, even on the same host, and a Location that is not http(s)', () => {
      assert.throws(() => hop('https://api.example.com/a', 'http://api.example.com/b', 307), refused('insecure'));
      assert.throws(() => hop('https://api.example.com/a', 'http://other.example.com/b', 302), refused('insecure'));
      assert.throws(() => hop('https://api.example.com/a', 'file:///etc/passwd', 302), refused('location'));
      assert.equal(hop('http://api.example.com/a', 'https://api.example.com/b', 307).method, 'POST', 'an upgrade is followed');
    });

    it('treats another scheme, port or host spelling as another origin', () => {
      for (const to of ['https://api.example.com/b', 'http://api.example.com:8080/b', 'http://API.example.com./b']) {
        const next = hop('http://api.example.com/a', to, 307);
        assert.deepEqual([...next.headers.keys()].sort(), ['accept', 'content-type'], to);
      }
      assert.equal(hop('http://api.example.com/a', 'http://API.EXAMPLE.COM:80/b', 307).headers.get('authorization'), SENT.Authorization);
    });

    it('keeps only the safe list across origins, and no content headers once the body is gone', () => {
      const headers = new Headers({ ...SENT, 'User-Agent': 'ua', 'Accept-Language': 'en', 'X-Custom': 'c', 'Content-Length': '7' });
      const next = hop('http://a.example/', 'http://b.example/', 303, { method: 'POST', headers, body: 'payload' });
      assert.deepEqual([...next.headers.keys()].sort(), ['accept', 'accept-language', 'user-agent']);
      assert.ok([...next.headers.keys()].every((name) => SAFE_CROSS_ORIGIN_HEADERS.has(name)));
      assert.equal(next.body, undefined);
    });

    it('keeps HEAD through a 303, and refuses to send a streamed body twice', () => {
      const head = hop('http://a.example/', 'http://a.example/b', 303, { method: 'HEAD', headers: new Headers(), body: undefined });
      assert.equal(head.method, 'HEAD');
      const stream = new ReadableStream({ start: (controller) => controller.close() });
      assert.throws(() => hop('http://a.example/', 'http://a.example/b', 307, request(stream)), refused('streamed-body'));
      assert.equal(hop('http://a.example/', 'http://a.example/b', 302, request(stream)).body, undefined, 'a GET does not resend it');
    });
  });
});
