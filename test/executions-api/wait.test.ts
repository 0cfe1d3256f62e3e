/**
 * GET /workflows/executions/{id}?wait=…: one request holds while the execution
 * runs (until it ends or waits on a signal, the time passes, the client leaves,
 * the API shuts down) and answers what the read without `wait` answers then; it
 * is authorized first, refuses malformed or too long waits, and takes one of the
 * caller's stream slots.
 *
 *   held:   start ─▶ call (http-request, answered when the test releases it)        outputs.by = the answer's by
 *   parked: start ─▶ call (held) ─▶ approval (signal-wait "go")                        outputs.by = the signal's payload.by
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { ExecutionEventHub, executionRoutes } from '../../api/executions';
import { closeGracefully, listen, portOf } from '../../startup/http-server';
import { createTestApp } from '../support/app';
import { chain, step, trigger } from '../support/definitions';
import { assertDialect } from '../support/dialects';
import { grantRole } from '../support/grants';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: waiting for the result in one request', function () {
  // Every wait below that must not hold asks for 60 s: only an answer that comes without waiting fits in this timeout.
  this.timeout(45_000);
  // A user may hold two streams (or waits) here.
  const { env, org } = useExecEnv({ limits: { maxStreamsPerUser: 2 } });

  /** Calls the runs make, held until the test answers them (`release`). */
  const held = new Map<string, (by: string) => void>();
  const arrived = new Map<string, () => void>();
  const server = useLocalServer((req, res) => {
    const name = String(req.url).split('/').pop()!;
    held.set(name, (by) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ by })));
    arrived.get(name)?.();
  });

  let keys = 0;
  /** A new execution whose `call` step is in flight (status running), and the function that answers the call. */
  async function running(withApproval = false): Promise<{ id: string; release: (by: string) => void }> {
    keys += 1;
    const name = `call-${keys}`;
    const called = new Promise<void>((resolve) => arrived.set(name, resolve));
    const call = step('call', 'http-request', { url: `${server.base}/${name}` });
    const workflowId = await publish(env, org, {
      name: `Held ${keys}`,
      key: `held-${keys}`,
      steps: withApproval ? chain(trigger(), call, step('approval', 'signal-wait', { signalName: 'go' })) : chain(trigger(), call),
      outputs: { by: withApproval ? '${{ steps.approval.outputs.payload.by }}' : '${{ steps.call.outputs.body.by }}' },
    });
    const id = await execute(env, org, workflowId);
    await called;
    return { id, release: (by) => held.get(name)!(by) };
  }

  /** A new execution parked on its signal wait (status waiting). */
  async function parked(): Promise<string> {
    const { id, release } = await running(true);
    release('the call');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    return id;
  }

  const read = (id: string, query = '') => org.auth(env.t.request.get(`/workflows/executions/${id}${query}`));
  const signal = (id: string, payload: Record<string, unknown>) =>
    org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/go`))
      .send(payload)
      .expect(200);

  /** The execution routes on a hub of the test's own, which counts its slots; closed after the test. */
  let hubs: CountingHub[] = [];
  afterEach(async () => {
    await Promise.all(hubs.map((hub) => hub.close()));
    hubs = [];
  });
  function ownHub() {
    const hub = new CountingHub(env.db);
    hubs.push(hub);
    const api = createTestApp({ routes: executionRoutes({ ...env.deps, eventHub: hub }), secret: env.t.secret });
    const get = (path: string) => api.request.get(path).set('Authorization', `Bearer ${org.token}`);
    return { hub, api, get };
  }

  /** A GET that records whether it has been answered. */
  function pending(request: PromiseLike<{ status: number; body: Record<string, unknown> }>) {
    const state = { answered: false };
    const response = Promise.resolve(request).then((res) => {
      state.answered = true;
      return res;
    });
    return { state, response };
  }

  it('answers completed, with the outputs, once the running execution ends', async () => {
    const run = await running();
    const { hub, get } = ownHub();
    const { state, response } = pending(get(`/workflows/executions/${run.id}?wait=60s`));
    await until(() => (hub.open === 1 ? true : undefined), 'the read never started waiting');
    assert.equal(state.answered, false, 'the read held while the execution ran');
    run.release('ana');
    const res = await response;
    assert.equal(res.status, 200);
    assert.equal(res.body.id, run.id);
    assert.equal(res.body.status, 'completed');
    assert.deepEqual(res.body.outputs, { by: 'ana' });
  });

  it('answers waiting once the execution parks on a signal (someone must act), and completed after the signal', async () => {
    const run = await running(true);
    const { hub, get } = ownHub();
    const { state, response } = pending(get(`/workflows/executions/${run.id}?wait=60s`));
    await until(() => (hub.open === 1 ? true : undefined), 'the read never started waiting');
    assert.equal(state.answered, false, 'the read held while the execution ran');
    run.release('the call');
    const res = await response;
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'waiting');
    assert.equal(res.body.outputs, undefined);
    await signal(run.id, { by: 'bea' });
    const ended = await get(`/workflows/executions/${run.id}?wait=60s`);
    assert.equal(ended.body.status, 'completed');
    assert.deepEqual(ended.body.outputs, { by: 'bea' });
  });

  it('answers the current state when the time passes first (a duration, or a number of seconds)', async () => {
    const run = await running();
    for (const wait of ['1500ms', '1']) {
      const started = Date.now();
      const res = await read(run.id, `?wait=${wait}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'running', wait);
      assert.equal(res.body.outputs, undefined);
      // Only a lower bound: a busy machine may answer late, never early.
      assert.ok(Date.now() - started >= 900, `${wait} held the request for the time asked`);
    }
    run.release('bo');
  });

  it('answers at once for an execution that has ended or waits, exactly as without wait', async () => {
    const waiting = await parked();
    const [plainWaiting, waitedWaiting] = await Promise.all([read(waiting), read(waiting, '?wait=60s')]);
    assert.equal(waitedWaiting.body.status, 'waiting');
    assert.deepEqual(waitedWaiting.body, plainWaiting.body);
    await signal(waiting, { by: 'cy' });
    await waitFor(env, org, waiting, finished);
    const [plain, waited] = await Promise.all([read(waiting), read(waiting, '?wait=60s')]);
    assert.equal(waited.status, 200);
    assert.equal(waited.body.status, 'completed');
    assert.deepEqual(waited.body.outputs, { by: 'cy' });
    assert.deepEqual(waited.body, plain.body);
  });
  it('refuses a malformed or too long wait with 400 problem+json naming the parameter', async () => {
    const id = await parked();
    const malformed = ['soon', '30x', '-1s', '1s;drop', ''];
    const tooLong = ['61s', '2m', '61', 'PT1H', '1d'];
    for (const wait of [...malformed, ...tooLong]) {
      const res = await read(id, `?wait=${encodeURIComponent(wait)}`);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/errors\/validation-failed$/);
      assert.equal(res.body.errors[0].path, '/query/wait', wait);
      if (tooLong.includes(wait)) assert.match(res.body.detail, /at most 60s \(EXECUTION_WAIT_MAX_SECONDS\)/, wait);
    }
    const twice = await read(id, '?wait=1s&wait=2s');
    assertDialect('problem', twice, 400);
    await signal(id, { by: 'di' });
  });

  it('authorizes before waiting: another organization’s execution is 404, a caller without workflow:read is refused', async () => {
    const id = await parked();
    const foreign = await org.otherAuth(env.t.request.get(`/workflows/executions/${id}?wait=60s`));
    assertDialect('problem', foreign, 404);
    assert.match(foreign.body.type, /\/errors\/execution-not-found$/);
    const missing = await read('exec_missing', '?wait=60s');
    assertDialect('problem', missing, 404);
    // `ops` manages services and providers: it holds nothing of the workflow engine.
    const { userId } = await grantRole(env.db, org.id, 'ops');
    const ops = await env.t.token({ organizationId: org.id, userId });
    const refused = await env.t.request.get(`/workflows/executions/${id}?wait=60s`).set('Authorization', `Bearer ${ops}`);
    assertDialect('problem', refused, 403);
    const body = await waitFor(env, org, id, () => true);
    assert.equal(body.status, 'waiting', 'nothing ended the execution: the refusals came before any waiting');
    await signal(id, { by: 'ed' });
  });

  it('gives the slot back when the client goes away mid-wait', async () => {
    const run = await running();
    const id = run.id;
    const { hub, api, get } = ownHub();
    const server = await listen(api.app.koa.callback(), 0, '127.0.0.1');
    try {
      const path = `/workflows/executions/${id}?wait=60s`;
      const probe = () => get(`/workflows/executions/${id}?wait=1ms`);
      const holding = [holdOpen(server, path, org.token), holdOpen(server, path, org.token)];
      await until(() => (hub.open === 2 ? true : undefined), 'the two waits never held their slots');
      const full = await probe();
      assertDialect('problem', full, 429);
      assert.match(full.body.type, /\/errors\/too-many-streams$/);
      assert.equal(full.headers['retry-after'], '5');
      assert.match(full.body.detail, /You already have 2 open event streams on this server \(EVENTS_MAX_STREAMS_PER_USER\)/);

      holding[0].abort();
      await assert.rejects(holding[0].done);
      const accepted = await until(async () => {
        const res = await probe();
        return res.status === 200 ? res : undefined;
      }, 'the slot of the aborted wait was never given back');
      assert.equal(accepted.body.status, 'running');

      run.release('flo');
      const last = await holding[1].done;
      assert.equal(last.status, 200);
      assert.equal((JSON.parse(last.text) as { status: string }).status, 'completed');
      assert.equal(hub.open, 0, 'every slot was given back');
    } finally {
      await closeGracefully(server, 1000);
    }
  });

  it('answers the current state when the API shuts down (the event hub closes)', async () => {
    const run = await running();
    const id = run.id;
    const { hub, get } = ownHub();
    const path = `/workflows/executions/${id}?wait=60s`;
    const held = get(path).then((res) => res);
    await until(() => (hub.open === 1 ? true : undefined), 'the read never started waiting');
    await hub.close();
    const res = await held;
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'running');
    assert.equal(hub.open, 0);
    // A wait asked after the close answers at once too.
    const after = await get(path);
    assert.equal(after.status, 200);
    assert.equal(after.body.status, 'running');
    run.release('gil');
  });

  it('lists the wait parameter of getExecution in /openapi.json', async () => {
    const document = (await env.t.request.get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string; in: string; description?: string }> }>>;
    };
    const operation = document.paths['/workflows/executions/{id}'].get;
    assert.equal(operation.operationId, 'getExecution');
    const wait = operation.parameters.find((p) => p.name === 'wait');
    assert.equal(wait?.in, 'query');
    assert.match(wait?.description ?? '', /EXECUTION_WAIT_MAX_SECONDS/);
  });
});

/** A GET held open on a connection of its own, which `abort` cuts as a client that goes away does. */
function holdOpen(
  server: http.Server,
  path: string,
  token: string,
): { done: Promise<{ status: number; text: string }>; abort: () => void } {
  let request!: http.ClientRequest;
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request = http.get(
      { host: '127.0.0.1', port: portOf(server), path, agent: false, headers: { Authorization: `Bearer ${token}` } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
  return { done, abort: () => request.destroy() };
}

/** The event hub, counting the slots it has given out (how a test knows that waits are in place, and that none leaked). */
class CountingHub extends ExecutionEventHub {
  open = 0;

  override openStream(...args: Parameters<ExecutionEventHub['openStream']>): ReturnType<ExecutionEventHub['openStream']> {
    const opened = super.openStream(...args);
    if (opened === 'opened') this.open += 1;
    return opened;
  }

  override closeStream(...args: Parameters<ExecutionEventHub['closeStream']>): void {
    super.closeStream(...args);
    this.open -= 1;
  }
}

/** Retries `attempt` until it answers something (at most about 15 s, generous for a busy machine). */
async function until<T>(attempt: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const answer = await attempt();
    if (answer !== undefined) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(what);
}
