/**
 * Testing a webhook workflow with the kit: once with the CRM call stubbed, and
 * once against a real HTTP server (the http-request plugin runs for real, with
 * its egress policy and the step's retry policy).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
// In your own repository: import { runWorkflow } from 'platform-api/kit';
import { loadDefinition, runWorkflow, type EgressPolicy } from '../../kit';

const file = path.join(__dirname, 'order-webhook.yaml');
/** What the webhook trigger hands the run: the request. */
const request = { method: 'POST', headers: {}, query: {}, body: { orderId: 'o-7', total: 42 } };

describe('example: order webhook', () => {
  it('is a valid definition', () => {
    assert.deepEqual(loadDefinition(file).errors, []);
  });

  it('sends the order to the CRM (stubbed) with the token and logs the record id', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const result = await runWorkflow({
      file,
      inputs: request,
      vars: { CRM_URL: 'https://crm.example' },
      secrets: { CRM_TOKEN: 'tok-123456' },
      stubs: {
        'http-request': ({ config }) => {
          calls.push(config);
          return { statusCode: 201, body: { id: 'crm-1' } };
        },
      },
      throwOnFailure: true,
    });
    assert.deepEqual(calls, [
      {
        method: 'POST',
        url: 'https://crm.example/orders',
        headers: { authorization: 'Bearer tok-123456' },
        body: { orderId: 'o-7', total: 42 },
      },
    ]);
    assert.deepEqual(result.outputs, { crmId: 'crm-1' });
    assert.deepEqual(
      result.logs.map((log) => log.message),
      ['order o-7 is CRM record crm-1'],
    );
  });

  describe('against a real server', () => {
    let server: Server;
    let url: string;
    let requests: Array<{ auth?: string; body: string }> = [];
    let failFirst = false;
    // Local test servers listen on loopback, which the default egress policy closes.
    const egress: EgressPolicy = { allow: ['*'], deny: [], allowCidrs: ['127.0.0.1'] };

    before(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          requests.push({ auth: req.headers.authorization, body });
          if (failFirst && requests.length === 1) return void res.writeHead(503).end();
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'crm-9' }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    beforeEach(() => (requests = []));
    after(() => new Promise((resolve) => server.close(resolve)));

    it('posts the order, retrying a 503 (no wall time on the instant clock)', async () => {
      failFirst = true;
      const result = await runWorkflow({
        file,
        inputs: request,
        vars: { CRM_URL: url },
        secrets: { CRM_TOKEN: 'tok-123456' },
        egress,
        throwOnFailure: true,
      });
      assert.equal(requests.length, 2);
      assert.equal(requests[1].auth, 'Bearer tok-123456');
      assert.deepEqual(JSON.parse(requests[1].body), { orderId: 'o-7', total: 42 });
      assert.deepEqual(result.outputs, { crmId: 'crm-9' });
    });
  });
});
