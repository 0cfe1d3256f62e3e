/**
 * Testing a paginated fan-out with the kit: paginated-fetch runs for real
 * against a local directory server (three pages), and each user runs the
 * real provision-user child workflow (loaded from this folder by key) with
 * its identity-provider call stubbed.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// In your own repository: import { runWorkflow } from 'platform-api/kit';
import { runWorkflow } from '../../kit';

const users = ['ann', 'bob', 'cy', 'dee', 'eve'].map((name) => ({ email: `${name}@example.com` }));

describe('example: sync users (paginated fan-out)', () => {
  let server: Server;
  let directoryUrl: string;
  const pagesServed: number[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://directory').searchParams;
      const page = Number(query.get('page'));
      const limit = Number(query.get('limit'));
      pagesServed.push(page);
      const data = users.slice((page - 1) * limit, page * limit);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data, hasMore: page * limit < users.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    directoryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('provisions every user of every page through the child workflow', async () => {
    const created: string[] = [];
    const result = await runWorkflow({
      file: `${__dirname}/sync-users.yaml`,
      // Sub-workflows by key from this folder's files.
      workflows: __dirname,
      vars: { DIRECTORY_URL: directoryUrl, IDP_URL: 'https://idp.example' },
      egress: { allow: ['*'], deny: [], allowCidrs: ['127.0.0.1'] },
      stubs: {
        'http-request': ({ config }) => {
          const email = (config.body as { email: string }).email;
          created.push(email);
          return { statusCode: 201, body: { id: `acct-${email.split('@')[0]}` } };
        },
      },
      throwOnFailure: true,
    });
    assert.deepEqual(pagesServed, [1, 2, 3]);
    assert.deepEqual(created.sort(), users.map((user) => user.email).sort());
    assert.deepEqual(result.outputs, { provisioned: 5, firstAccount: 'acct-ann' });
  });
});
