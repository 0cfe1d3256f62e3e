/**
 * The execution event stream (Server-Sent Events): live step and wait events
 * and the end event, resumable with Last-Event-ID, closed for other organizations,
 * ended when the caller's grants no longer reach it, capped per organization and user.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { ExecutionEventHub } from '../../api/executions';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { closeGracefully, listen, portOf } from '../../startup/http-server';
import { assertDialect } from '../support/dialects';
import { trigger } from '../support/definitions';
import { grantRole } from '../support/grants';
import { publish, useExecEnv, waitFor } from './support';

interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** Reads an SSE stream until it ends (or `until` says stop), returning the parsed events. */
function readEvents(
  port: number,
  path: string,
  token: string,
  headers: Record<string, string> = {},
  onEvent?: (event: SseEvent) => void,
): Promise<{ status: number; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream', ...headers } },
      (response) => {
        const events: SseEvent[] = [];
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields = Object.fromEntries(
              block
                .split('\n')
                .filter((line) => !line.startsWith(':') && line.includes(': '))
                .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
            );
            if (!fields.event) continue;
            const event = { id: fields.id, event: fields.event, data: JSON.parse(fields.data) as Record<string, unknown> };
            events.push(event);
            onEvent?.(event);
          }
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, events }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.setTimeout(20_000, () => request.destroy(new Error('the stream did not end')));
  });
}

describe('executions API: event stream', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: http.Server;
  before(async () => {
    server = await listen(env.t.app.koa.callback(), 0, '127.0.0.1');
  });
  after(async () => {
    if (server) await closeGracefully(server, 1000);
  });

  it('streams step events live until the end, and resumes after Last-Event-ID', async () => {
    const workflowId = await publish(env, org, {
      name: 'Streamed',
      steps: [
        trigger(),
        { id: 'approval', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] },
        { id: 'after', type: 'module', pluginType: 'log', config: { message: 'done' }, dependsOn: ['approval'] },
      ],
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (body) => body.status === 'waiting');

    let signalled = false;
    const stream = readEvents(portOf(server), `/workflows/executions/${id}/events`, org.token, {}, (event) => {
      // The wait is visible on the stream before the signal is sent: the stream is live, not a replay at the end.
      if (!signalled && event.event === 'wait.started' && event.data.stepId === 'approval') {
        signalled = true;
        // supertest sends on then(), not on creation.
        org
          .auth(env.t.request.post(`/workflows/executions/${id}/signals/go`))
          .send({ ok: true })
          .then(
            (res) => assert.equal(res.status, 200),
            (error: unknown) => assert.fail(String(error)),
          );
      }
    });
    const { status, events } = await stream;
    assert.equal(status, 200);
    const seen = events.map((e) => `${e.event}:${String(e.data.stepId ?? e.data.status)}`);
    assert.deepEqual(seen, [
      'step.started:start',
      'step.completed:start',
      'step.started:approval',
      'wait.started:approval',
      'wait.ended:approval',
      'step.completed:approval',
      'step.started:after',
      'step.completed:after',
      'execution.completed:completed',
    ]);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => String(i)),
      "ids are the events' positions",
    );

    const resumed = await readEvents(portOf(server), `/workflows/executions/${id}/events`, org.token, { 'Last-Event-ID': events[3].id });
    assert.deepEqual(
      resumed.events.map((e) => e.id),
      events.slice(4).map((e) => e.id),
    );

    const foreign = await org.otherAuth(env.t.request.get(`/workflows/executions/${id}/events`));
    assert.equal(foreign.status, 404);
  });
});

describe('executions API: event streams are woken, capped and bounded', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ limits: { maxStreamsPerOrganization: 1, streamIdleSeconds: 1 } });
  let server: http.Server;
  before(async () => {
    server = await listen(env.t.app.koa.callback(), 0, '127.0.0.1');
  });
  after(async () => {
    if (server) await closeGracefully(server, 1000);
  });

  async function waitingExecution(key: string): Promise<string> {
    const workflowId = await publish(env, org, {
      name: 'Parked',
      key,
      steps: [trigger(), { id: 'approval', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] }],
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    return id;
  }

  it('notifies the process when an execution commits events (one LISTEN, no polling)', async () => {
    const id = await waitingExecution('notified');
    const hub = new ExecutionEventHub(env.db);
    const woken = new Promise<void>((resolve) => hub.follow(id, resolve));
    // The listening connection is opened by the first follower: once it listens, every later commit is notified.
    await hub.listening();
    await org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/go`))
      .send({})
      .expect(200);
    await woken;
    await hub.close();
    assert.equal(hub.isClosed, true);
  });

  it('keeps its listening connection for the next follower after the last one left (one PostgreSQL backend, not one per request)', async () => {
    const listening = async (): Promise<number> =>
      Number((await env.db.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN execution_events'`))[0].n);
    const before = await listening();
    const hub = new ExecutionEventHub(env.db);
    const first = hub.follow('exec_linger_1', () => undefined);
    await hub.listening();
    assert.equal(await listening(), before + 1);
    first();
    assert.equal(await listening(), before + 1, 'still listening with no follower');
    const second = hub.follow('exec_linger_2', () => undefined);
    await hub.listening();
    assert.equal(await listening(), before + 1, 'the next follower reuses the connection');
    second();
    await hub.close();
    for (let i = 0; i < 50 && (await listening()) > before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await listening(), before, 'closed with the hub');
  });

  it('answers 429 with Retry-After above the streams of an organization, and ends an idle stream', async () => {
    const id = await waitingExecution('capped');
    const path = `/workflows/executions/${id}/events`;
    const first = readEvents(portOf(server), path, org.token);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await org.auth(env.t.request.get(path));
    assertDialect('problem', second, 429);
    assert.equal(second.headers['retry-after'], '5');
    assert.match(second.body.detail, /EVENTS_MAX_STREAMS_PER_ORGANIZATION/);
    // Nothing happens on the parked execution: the first stream ends after the idle limit, with what it had.
    const ended = await first;
    assert.equal(ended.status, 200);
    assert.deepEqual(
      ended.events.map((e) => e.event),
      ['step.started', 'step.completed', 'step.started', 'wait.started'],
    );
    const again = await readEvents(portOf(server), path, org.token, { 'Last-Event-ID': '3' });
    assert.deepEqual(again, { status: 200, events: [] }, 'the slot was given back; the resumed stream idles out empty');
  });
});

describe('executions API: event streams follow the caller’s grants, and each user has a share', function () {
  this.timeout(120_000);
  // Grants are re-checked every second here (5 s by default); a user may hold two streams.
  const { env, org } = useExecEnv({ limits: { streamAccessCheckSeconds: 1, maxStreamsPerUser: 2 } });
  let server: http.Server;
  before(async () => {
    server = await listen(env.t.app.koa.callback(), 0, '127.0.0.1');
  });
  after(async () => {
    if (server) await closeGracefully(server, 1000);
  });

  const account7 = () => `organization=${org.id}:account=7`;
  const parkedSteps = [
    trigger(),
    { id: 'approval', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] },
    { id: 'after', type: 'module', pluginType: 'log', config: { message: 'done' }, dependsOn: ['approval'] },
  ];
  const PARKED = ['step.started', 'step.completed', 'step.started', 'wait.started'];
  const WHOLE = [...PARKED, 'wait.ended', 'step.completed', 'step.started', 'step.completed', 'execution.completed'];

  /** A member of the organization holding `developer` on account 7 only (as in the review). */
  async function member(): Promise<{ token: string; grantId: number }> {
    const { userId, grantId } = await grantRole(env.db, org.id, 'developer', account7());
    return { token: await env.t.token({ organizationId: org.id, userId }), grantId: grantId! };
  }

  /** An execution of a workflow on account 7, parked on its signal wait. */
  async function parked(key: string): Promise<{ id: string; body: Record<string, unknown> }> {
    const body = { name: `Parked ${key}`, key, nrn: account7(), steps: parkedSteps };
    const workflowId = await publish(env, org, body);
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (b) => b.status === 'waiting');
    return { id, body };
  }

  /** Follows an execution's stream; `parked` resolves once the wait was delivered (the stream holds its slot by then). */
  function follow(id: string, token: string) {
    let seenWait!: () => void;
    const parkedSeen = new Promise<void>((resolve) => (seenWait = resolve));
    let ended = false;
    const done = readEvents(portOf(server), `/workflows/executions/${id}/events`, token, {}, (event) => {
      if (event.event === 'wait.started') seenWait();
    }).finally(() => (ended = true));
    return { parked: parkedSeen, done, ended: () => ended };
  }

  /** The stream's end, or a failure when it is still open after `ms` (a generous bound for a busy machine). */
  function endsWithin<T>(done: Promise<T>, ms: number, what: string): Promise<T> {
    let timer!: NodeJS.Timeout;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
    return Promise.race([done, late]).finally(() => clearTimeout(timer));
  }

  const signalAndFinish = async (id: string) => {
    await org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/go`))
      .send({})
      .expect(200);
    await waitFor(env, org, id, (b) => b.status === 'completed');
  };

  it('ends a member’s open stream once its grant is revoked, and delivers nothing after', async () => {
    const m = await member();
    const { id } = await parked('revoked');
    const stream = follow(id, m.token);
    await stream.parked;
    await GrantRepository.of(env.db.manager).delete(m.grantId);
    const { status, events } = await endsWithin(stream.done, 15_000, 'the stream stayed open after the grant was revoked');
    assert.equal(status, 200);
    // What the execution does after the revoke never reaches the member.
    await signalAndFinish(id);
    assert.deepEqual(
      events.map((e) => e.event),
      PARKED,
    );
    // A reconnect is authorized afresh: the member holds nothing in the organization any more.
    const again = await env.t.request.get(`/workflows/executions/${id}/events`).set('Authorization', `Bearer ${m.token}`);
    assertDialect('problem', again, 404);
  });

  it('ends the stream when the workflow’s NRN moves out of the member’s reach', async () => {
    const m = await member();
    const { id, body } = await parked('moved');
    const stream = follow(id, m.token);
    await stream.parked;
    const moved = await org
      .auth(env.t.request.put('/workflows/definitions/moved'))
      .send({ ...body, nrn: `organization=${org.id}:account=8` });
    assert.equal(moved.status, 200, moved.text);
    const { events } = await endsWithin(stream.done, 15_000, 'the stream stayed open after its workflow moved to account 8');
    await signalAndFinish(id);
    assert.deepEqual(
      events.map((e) => e.event),
      PARKED,
    );
  });

  it('keeps a stream whose grants hold open across the checks, and delivers to the end', async () => {
    const m = await member();
    const { id } = await parked('intact');
    const stream = follow(id, m.token);
    await stream.parked;
    // Several checks pass (one a second here) while the execution is parked.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.equal(stream.ended(), false, 'the stream is still open');
    await signalAndFinish(id);
    const { events } = await endsWithin(stream.done, 15_000, 'the stream did not end after the end event');
    assert.deepEqual(
      events.map((e) => e.event),
      WHOLE,
    );
  });

  it('caps the streams of one user, so another member of the organization still opens one', async () => {
    const a = await member();
    const b = await member();
    const { id } = await parked('per-user');
    const held = [follow(id, a.token), follow(id, a.token)];
    await Promise.all(held.map((s) => s.parked));
    const third = await env.t.request.get(`/workflows/executions/${id}/events`).set('Authorization', `Bearer ${a.token}`);
    assertDialect('problem', third, 429);
    assert.equal(third.headers['retry-after'], '5');
    assert.match(third.body.detail, /You already have 2 open event streams on this server \(EVENTS_MAX_STREAMS_PER_USER\)/);
    const other = follow(id, b.token);
    await endsWithin(other.parked, 15_000, 'the second member could not open a stream');
    await signalAndFinish(id);
    for (const stream of [...held, other]) {
      const { events } = await endsWithin(stream.done, 15_000, 'a stream did not end after the end event');
      assert.deepEqual(
        events.map((e) => e.event),
        WHOLE,
      );
    }
  });
});
