import assert from 'node:assert/strict';
import http from 'node:http';
import { isIPv4, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { AddressRanges, CLOSED_RANGES } from '../../activities/egress/address-ranges';
import { DEFAULT_EGRESS, EgressDenied, checkAddress, type EgressPolicy } from '../../activities/egress/policy';
import { codeExec } from '../../activities/plugins/code-exec';
import { httpRequest } from '../../activities/plugins/http-request';
import { paginatedFetch } from '../../activities/plugins/paginated-fetch';
import { failure, pluginContext } from '../support/plugin-calls';

/**
 * SSRF: every form of an internal address named in the security review is
 * refused by all three plugins that reach the network, before anything is
 * sent, with an error that names the setting that would open it.
 */
const BYPASSES = [
  'http://127.0.0.1/',
  'http://127.1.2.3/',
  'http://localhost/',
  'http://0.0.0.0/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal./computeMetadata/v1/',
  'http://169.254.169.254./',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[fc00::1]/',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://[ff02::1]/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0251.0376.0251.0376/',
  'http://203.0.113.1/',
  'http://[2001:db8::1]/',
  'http://[64:ff9b:1::1]/',
];

const context = (config: Record<string, unknown>, egress: EgressPolicy = DEFAULT_EGRESS) => pluginContext(config, {}, egress).ctx;

describe('egress: addresses, not names', function () {
  this.timeout(30_000);
  let server: http.Server;
  let base: string;
  const hits: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/to') return void res.writeHead(302, { location: url.searchParams.get('target') ?? '/' }).end();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [], reached: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (hits.length = 0));

  it('closes private, loopback, link-local, CGNAT, ULA, multicast and embedded-IPv4 forms', () => {
    const closed = new AddressRanges(CLOSED_RANGES);
    for (const address of [
      '127.0.0.1',
      '10.1.1.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.127.0.1',
      '0.1.2.3',
      '239.1.1.1',
    ])
      assert.ok(closed.match(address), address);
    for (const address of [
      '::1',
      '::',
      'fc00::1',
      'fdff::1',
      'fe80::1',
      'ff02::1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
    ])
      assert.ok(closed.match(address), address);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(closed.match(address), undefined, address);
    assert.match(closed.match('::ffff:169.254.169.254') ?? '', /^169\.254\.0\.0\/16, link-local/);
  });

  it('closes documentation, benchmarking and local-use NAT64 ranges, also inside NAT64, mapped and Teredo forms', () => {
    const closed = new AddressRanges(CLOSED_RANGES);
    const expected: Array<[string, RegExp]> = [
      ['192.0.2.10', /TEST-NET-1/],
      ['198.51.100.7', /TEST-NET-2/],
      ['203.0.113.9', /TEST-NET-3/],
      ['198.19.255.255', /benchmarking/],
      ['2001:db8::1', /^2001:db8::\/32, documentation/],
      ['2001:db8:ffff::1', /documentation/],
      ['64:ff9b:1::a', /local-use NAT64/],
      ['64:ff9b:1:ffff::808:808', /local-use NAT64/],
      ['64:ff9b::c000:20a', /TEST-NET-1/],
      ['64:ff9b::203.0.113.9', /TEST-NET-3/],
      ['::ffff:198.51.100.7', /TEST-NET-2/],
      ['::ffff:c633:6407', /TEST-NET-2/],
      // Teredo: the client's IPv4 address, inverted, in the last 32 bits (192.0.2.45 here).
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /TEST-NET-1/],
      ['0.0.0.0', /this network/],
      ['::', /unspecified/],
    ];
    for (const [address, reason] of expected) assert.match(closed.match(address) ?? 'open', reason, address);
    for (const address of [
      '192.0.3.1',
      '198.51.101.1',
      '203.0.114.1',
      '2001:db9::1',
      '64:ff9b::808:808',
      '64:ff9b:2::1',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ])
      assert.equal(closed.match(address), undefined, address);
  });

  it('opens a newly closed range when an operator lists it in EGRESS_ALLOW_CIDRS', () => {
    const opened: EgressPolicy = { ...DEFAULT_EGRESS, allowCidrs: ['198.51.100.0/24', '2001:db8:1::/48'] };
    checkAddress(opened, '198.51.100.7', 'partner.example');
    checkAddress(opened, '2001:db8:1::7', 'partner.example');
    assert.throws(
      () => checkAddress(opened, '2001:db8:2::7', 'partner.example'),
      /documentation; operators open it with EGRESS_ALLOW_CIDRS$/,
    );
  });

  it("closes the worker host's own interface addresses, even inside an opened range, unless that address is opened itself", function () {
    const own = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.internal)
      .map((entry) => entry.address);
    if (own.length === 0) return this.skip();
    const everything: EgressPolicy = { ...DEFAULT_EGRESS, allowCidrs: ['0.0.0.0/0', '::/0'] };
    const hostOwn = (error: unknown) => error instanceof EgressDenied && /an address of this worker host \(/.test(error.message);
    for (const address of own) {
      assert.throws(() => checkAddress(DEFAULT_EGRESS, address, 'api.example'), hostOwn, address);
      assert.throws(() => checkAddress(everything, address, 'api.example'), hostOwn, `${address} inside an opened range`);
      if (isIPv4(address)) assert.throws(() => checkAddress(everything, `::ffff:${address}`, 'api.example'), hostOwn, `mapped ${address}`);
      checkAddress({ ...DEFAULT_EGRESS, allowCidrs: [address] }, address, 'api.example');
      checkAddress({ ...DEFAULT_EGRESS, allowCidrs: [`${address}/${isIPv4(address) ? 32 : 128}`] }, address, 'api.example');
    }
  });

  for (const url of BYPASSES) {
    it(`refuses ${url} in http-request, paginated-fetch and code-exec fetch`, async () => {
      const direct = await failure(httpRequest(context({ url })));
      assert.equal(direct.type, 'HTTP_EGRESS_DENIED', direct.message);
      assert.equal(direct.nonRetryable, true);
      assert.match(direct.message, /EGRESS_ALLOW_CIDRS|EGRESS_ALLOW_HOSTS/);
      const paged = await failure(paginatedFetch(context({ url })));
      assert.equal(paged.type, 'HTTP_EGRESS_DENIED', paged.message);
      const code = await failure(
        codeExec(context({ code: `await fetch(${JSON.stringify(url)}); return {}`, network: { allowedHosts: ['*'] } })),
      );
      assert.match(code.message, /^Error: fetch: egress to .* is not allowed/);
      assert.deepEqual(hits, []);
    });
  }

  it('names the host that resolved inside, and the setting that opens it', async () => {
    const denied = await failure(httpRequest(context({ url: 'http://localhost:8080/' })));
    assert.match(
      denied.message,
      /^egress to (127\.0\.0\.1|::1) \(localhost resolves to it\) is not allowed: .*; operators open it with EGRESS_ALLOW_CIDRS$/,
    );
  });

  it('reaches an opened range, and checks every redirect hop again', async () => {
    const opened: EgressPolicy = { ...DEFAULT_EGRESS, allowCidrs: ['127.0.0.1/32'] };
    const ok = await httpRequest(context({ url: `${base}/json` }, opened));
    assert.deepEqual((ok.outputs as { body: unknown }).body, { data: [], reached: true });
    for (const target of ['http://169.254.169.254/', 'http://[::ffff:7f00:2]/', `http://127.0.0.2:${new URL(base).port}/`]) {
      hits.length = 0;
      const url = `${base}/to?target=${encodeURIComponent(target)}`;
      const redirected = await failure(httpRequest(context({ url }, opened)));
      assert.equal(redirected.type, 'HTTP_EGRESS_DENIED', `${target}: ${redirected.message}`);
      const code = await failure(
        codeExec(context({ code: `await fetch(${JSON.stringify(url)}); return {}`, network: { allowedHosts: ['*'] } }, opened)),
      );
      assert.match(code.message, /^Error: fetch: egress to .* is not allowed/);
      assert.equal(hits.length, 2, 'only the first hop reached the server, once per plugin');
    }
  });

  it('still refuses a host denied by name even inside an opened range', async () => {
    const policy: EgressPolicy = { allow: ['*'], deny: ['127.0.0.1'], allowCidrs: ['127.0.0.0/8'] };
    const denied = await failure(httpRequest(context({ url: `${base}/json` }, policy)));
    assert.match(denied.message, /EGRESS_DENY_HOSTS/);
    assert.deepEqual(hits, []);
  });
});
