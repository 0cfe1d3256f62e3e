/**
 * Soft timeouts of the frontend's long polls (history close-event wait, update waits, task-queue
 * polls), shortened on an in-process stand-in, with the real SDK re-polling through them.
 */
import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { StandInServer } from '../temporal-server/server';
import { createActivities } from './activities';
import { eventually, historiesOf, newProbe, replayFailures, uniqueQueue, workflowBundle } from './harness';
import * as wf from './workflows';

describe('temporal stand-in: long polls with short soft timeouts', function () {
  this.timeout(60_000);
  let server: StandInServer;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  const queue = uniqueQueue('longpoll');

  before(async function () {
    this.timeout(120_000);
    server = await StandInServer.start({ pollTimeoutMs: 200, longPollTimeoutMs: 200 });
    connection = await Connection.connect({ address: server.address });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    client = new Client({ connection });
    await workflowBundle();
  });

  after(async () => {
    await connection?.close();
    await nativeConnection?.close();
    await server?.stop();
  });

  it('keeps result(), updates and workers going across many empty long-poll replies', async () => {
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createActivities(newProbe()),
    });
    await worker.runUntil(async () => {
      // idle for several poll timeouts first: workers re-poll after empty replies
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(await client.workflow.execute(wf.sleeper, { taskQueue: queue, workflowId: `${queue}-sleep`, args: [1000] }), 'woke');
      const handle = await client.workflow.start(wf.slowUpdater, { taskQueue: queue, workflowId: `${queue}-update` });
      assert.equal(await handle.executeUpdate(wf.slowUpdate, { args: [800] }), 'slept 800');
      await handle.signal(wf.doneSignal);
      assert.equal(await handle.result(), 'done');
    });
  });

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(client, [queue]);
      assert.equal(found.length, 2);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
