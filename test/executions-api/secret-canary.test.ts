import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Response } from 'supertest';
import { traceEgress } from '../../activities/egress/egress-fetch';
import { egressSpans } from '../../activities/egress/egress-spans';
import { allCapturedLines } from '../support/logger';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/**
 * A secret referenced in an http-request header reaches the server that needs
 * it, and never comes back: not in any API response, the execution's logs,
 * steps or state, nor its Temporal history, even when the server echoes it.
 */
describe('executions API: a secret canary never leaks', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let baseUrl: string;
  const received: IncomingHttpHeaders[] = [];

  before(async () => {
    // Echoes the Authorization header back in its body and a response header: the worst case for redaction.
    server = createServer((req, res) => {
      if (req.url?.startsWith('/echo-url/')) {
        // Refuses the request, echoing the URL it was sent to (where a secret in the path arrives percent-encoded).
        res.statusCode = 400;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ url: req.url }));
        return;
      }
      received.push(req.headers);
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-echo', String(req.headers.authorization ?? ''));
      res.end(JSON.stringify({ seen: req.headers.authorization ?? null, ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** The run's Temporal history as text, payload bytes (base64 `data` strings) decoded so a search sees what payloads carry. */
  /**
   * The run's whole history, once Temporal has closed it: the row reads finished a moment before (the run records its
   * end, then completes), and a light step's call reaches history (a marker) only when that last workflow task completes.
   */
  async function readableHistory(id: string): Promise<string> {
    const handle = env.temporal.client.workflow.getHandle(id);
    await handle.result().catch(() => undefined);
    return JSON.stringify(await handle.fetchHistory(), (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
  }

  it('sends the secret to the server and redacts it everywhere else', async () => {
    const canary = `canary-${randomBytes(16).toString('hex')}`;
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'API_TOKEN', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));

    await publish(env, org, {
      name: 'Canary',
      key: 'canary',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        call: {
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${baseUrl}/hook`, headers: { Authorization: 'Bearer ${{ secrets.API_TOKEN }}' } },
        },
        note: {
          type: 'module',
          pluginType: 'log',
          config: { message: 'server said ${{ steps.call.outputs.body.seen }} / ${{ steps.call.outputs.headers }}' },
        },
      },
      connections: [
        { from: 'start', to: 'call' },
        { from: 'call', to: 'note' },
      ],
      outputs: { seen: '${{ steps.call.outputs.body.seen }}', ok: '${{ steps.call.outputs.body.ok }}' },
    });
    const id = await execute(env, org, 'canary');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((done.outputs as { ok: boolean }).ok, true);

    assert.equal(received.length, 1);
    assert.equal(received[0].authorization, `Bearer ${canary}`, 'the server received the secret');

    const responses: Array<{ path: string; res: Response }> = [];
    const read = async (path: string) => {
      const res = await org.auth(env.t.request.get(path));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      responses.push({ path, res });
    };
    for (const path of ['', '/state', '/steps', '/steps/call', '/steps/note', '/logs', '/logs?stepId=note', '/pending-signals'])
      await read(`/workflows/executions/${id}${path}`);
    await read('/workflows/executions');
    await read(`/workflows/config?path=/`);
    responses.push({ path: 'POST /workflows/config', res: created });
    const logs = responses.find((entry) => entry.path.endsWith('/logs'))!;
    assert.equal(logs.res.body.data.length, 1, 'the log line that interpolated the echo was written');
    // The echoed value was interpolated, redacted (so the checks below test redaction, not an empty echo).
    assert.match(logs.res.body.data[0].message, /^server said Bearer \S+ \//);
    assert.equal((done.outputs as { seen: string }).seen.startsWith('Bearer '), true);
    for (const { path, res } of responses) assert.equal(res.text.includes(canary), false, `${path} leaks the secret: ${res.text}`);

    const rows = await env.db.query<Array<{ text: string }>>(
      `SELECT row_to_json(e)::text AS text FROM executions e WHERE id = $1
       UNION ALL SELECT row_to_json(s)::text FROM execution_steps s WHERE execution_id = $1
       UNION ALL SELECT row_to_json(l)::text FROM execution_logs l WHERE execution_id = $1`,
      [id],
    );
    for (const row of rows) assert.equal(row.text.includes(canary), false, `a stored row leaks the secret: ${row.text}`);
    const history = await readableHistory(id);
    assert.ok(history.includes(`${baseUrl}/hook`), 'payloads are readable in the decoded history');
    for (const form of [canary, Buffer.from(canary).toString('base64')])
      assert.equal(history.includes(form), false, 'the Temporal history leaks the secret');
  });

  it('redacts a secret that code-exec receives, logs and throws, and keeps it out of the service logs', async () => {
    const canary = `canary-${randomBytes(16).toString('hex')}`;
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'CODE_TOKEN', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await publish(env, org, {
      name: 'Canary code',
      key: 'canary-code',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        leak: {
          type: 'module',
          pluginType: 'code-exec',
          inputs: { token: '${{ secrets.CODE_TOKEN }}' },
          config: { code: 'console.log("token is " + inputs.token); throw new Error("cannot use " + inputs.token);' },
        },
      },
      connections: [{ from: 'start', to: 'leak' }],
    });
    const id = await execute(env, org, 'canary-code');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'failed');
    const error = done.error as { type: string; message: string };
    assert.equal(error.type, 'SANDBOX_ERROR');
    assert.match(error.message, /^Error: cannot use <redacted>$/, 'the thrown message was interpolated, then redacted');

    for (const path of ['', '/state', '/steps', '/logs', '/events']) {
      const res = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`));
      assert.equal(res.text.includes(canary), false, `${path} leaks the secret`);
    }
    const rows = await env.db.query<Array<{ text: string }>>(
      `SELECT row_to_json(e)::text AS text FROM executions e WHERE id = $1
       UNION ALL SELECT row_to_json(s)::text FROM execution_steps s WHERE execution_id = $1
       UNION ALL SELECT row_to_json(l)::text FROM execution_logs l WHERE execution_id = $1
       UNION ALL SELECT row_to_json(v)::text FROM execution_events v WHERE execution_id = $1`,
      [id],
    );
    assert.ok(
      rows.some((row) => row.text.includes('token is <redacted>')),
      'the sandbox log line was recorded, redacted',
    );
    for (const row of rows) assert.equal(row.text.includes(canary), false, `a stored row leaks the secret: ${row.text}`);
    const history = await readableHistory(id);
    assert.equal(history.includes(canary), false, 'the Temporal history leaks the secret');
    for (const line of allCapturedLines) assert.equal(line.includes(canary), false, 'a service log line leaks the secret');
  });
  /**
   * The forms a secret takes in a URL: a host is lower-cased by the URL parser (and comes back so in
   * the DNS error), a path is percent-encoded (and comes back so from a server that echoes it). Neither
   * form reaches the execution record, the step records or the Temporal history.
   */
  it('redacts a secret lower-cased in a URL host and percent-encoded in a URL path, in records and history', async () => {
    const hex = randomBytes(12).toString('hex');
    const secrets = { HOST_TOKEN: `Canary-Host-${hex}`, PATH_TOKEN: `canary path:${hex}` };
    for (const [name, value] of Object.entries(secrets)) {
      const created = await org.auth(env.t.request.post('/workflows/config')).send({ name, value, secret: true, path: '/' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const once = { retry_policy: { max_attempts: 1 } };
    const run = async (key: string, url: string) => {
      await publish(env, org, {
        name: key,
        key,
        steps: [
          { id: 'start', type: 'trigger', pluginType: 'manual' },
          { id: 'call', type: 'module', pluginType: 'http-request', config: { url }, depends_on: ['start'], error_handling: once },
        ],
      });
      const id = await execute(env, org, key);
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      return { id, done };
    };
    const host = await run('secret-in-host', 'http://${{ secrets.HOST_TOKEN }}.invalid/');
    assert.match(JSON.stringify(host.done.error), /ENOTFOUND <redacted>\.invalid/, 'the DNS error named the host, redacted');
    const path = await run('secret-in-path', `${baseUrl}/echo-url/\${{ secrets.PATH_TOKEN }}`);
    // The failure's details (the response, with the echoed URL) travel in the activity failure in history.
    assert.match(await readableHistory(path.id), /\/echo-url\/<redacted>/, 'the echoed URL reached history, redacted');

    for (const { id } of [host, path]) {
      const texts: Array<{ where: string; text: string }> = [];
      for (const suffix of ['', '/state', '/steps', '/steps/call', '/logs', '/events'])
        texts.push({
          where: suffix || 'the execution',
          text: (await org.auth(env.t.request.get(`/workflows/executions/${id}${suffix}`))).text,
        });
      const rows = await env.db.query<Array<{ text: string }>>(
        `SELECT row_to_json(e)::text AS text FROM executions e WHERE id = $1
         UNION ALL SELECT row_to_json(s)::text FROM execution_steps s WHERE execution_id = $1
         UNION ALL SELECT row_to_json(l)::text FROM execution_logs l WHERE execution_id = $1
         UNION ALL SELECT row_to_json(v)::text FROM execution_events v WHERE execution_id = $1`,
        [id],
      );
      texts.push(...rows.map((row) => ({ where: 'a stored row', text: row.text })));
      texts.push({ where: 'the Temporal history', text: await readableHistory(id) });
      // Every form ends in the random part: none of it may remain anywhere.
      for (const { where, text } of texts) assert.equal(text.toLowerCase().includes(hex), false, `${where} leaks a secret: ${text}`);
    }
  });

  it('keeps a secret used in a URL host out of the CLIENT span of the call (server.address, the error status)', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    traceEgress(egressSpans(provider.getTracer('test')));
    try {
      const hex = randomBytes(12).toString('hex');
      const created = await org
        .auth(env.t.request.post('/workflows/config'))
        .send({ name: 'SPAN_HOST', value: `Span-Host-${hex}`, secret: true, path: '/' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await publish(env, org, {
        name: 'span-host',
        key: 'span-host',
        steps: [
          { id: 'start', type: 'trigger', pluginType: 'manual' },
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'http://${{ secrets.SPAN_HOST }}.invalid/' },
            depends_on: ['start'],
            error_handling: { retry_policy: { max_attempts: 1 } },
          },
        ],
      });
      const id = await execute(env, org, 'span-host');
      await waitFor(env, org, id, finished);
      const clients = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);
      assert.ok(clients.length >= 1, 'the call made a CLIENT span');
      for (const span of clients) {
        assert.equal(span.attributes['server.address'], '<redacted>.invalid');
        const text = JSON.stringify({ attributes: span.attributes, status: span.status, events: span.events, name: span.name });
        assert.equal(text.toLowerCase().includes(hex), false, `a span leaks the secret: ${text}`);
      }
    } finally {
      traceEgress(undefined);
      await provider.shutdown();
    }
  });

  it('redacts the forms the URL parser makes of a secret with a backslash, a TAB or a LF (path and query), and nothing more', async () => {
    const hex = randomBytes(8).toString('hex');
    const value = `Slash\\tab\tline\n${hex}`;
    const created = await org.auth(env.t.request.post('/workflows/config')).send({ name: 'URL_FORMS', value, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await publish(env, org, {
      name: 'url-forms',
      key: 'url-forms',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        {
          id: 'call',
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${baseUrl}/echo-url/\${{ secrets.URL_FORMS }}?q=\${{ secrets.URL_FORMS }}&note=Slash` },
          depends_on: ['start'],
          error_handling: { retry_policy: { max_attempts: 1 } },
        },
      ],
    });
    const id = await execute(env, org, 'url-forms');
    await waitFor(env, org, id, finished);
    const history = await readableHistory(id);
    const steps = (await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`))).text;
    for (const [where, text] of [
      ['history', history],
      ['steps', steps],
    ]) {
      assert.equal(text.toLowerCase().includes(hex), false, `${where} leaks a URL form of the secret: ${text}`);
      // The secret's first part alone is ordinary text, and stays (the query's `note=Slash`).
      assert.ok(text.includes('note=Slash'), `${where} over-redacts: ${text}`);
    }
  });

  it('evaluates in the activity an expression that mixes a variable, a step output and a secret', async () => {
    const canary = `canary-${randomBytes(16).toString('hex')}`;
    for (const entry of [
      { name: 'MIX_KEY', value: canary, secret: true },
      { name: 'MIX_BASE', value: baseUrl, secret: false },
    ]) {
      const created = await org.auth(env.t.request.post('/workflows/config')).send({ ...entry, path: '/' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    await publish(env, org, {
      name: 'Mixed template',
      key: 'mixed-template',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        name: { type: 'module', pluginType: 'set-variable', config: { path: 'who', value: 'mixer' } },
        call: {
          type: 'module',
          pluginType: 'http-request',
          config: {
            url: "${{ vars.MIX_BASE + '/mixed/' + variables.who }}",
            headers: { 'x-key': "${{ variables.who + ':' + secrets.MIX_KEY }}" },
          },
        },
      },
      connections: [
        { from: 'start', to: 'name' },
        { from: 'name', to: 'call' },
      ],
    });
    const before = received.length;
    const id = await execute(env, org, 'mixed-template');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(received.length, before + 1);
    assert.equal(received[before]['x-key'], `mixer:${canary}`, 'the activity evaluated the whole expression');
    const history = await readableHistory(id);
    assert.equal(history.includes(canary), false, 'the Temporal history leaks the secret');
  });
});
