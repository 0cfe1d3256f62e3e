/**
 * Eager workflow start: with the worker in the API's process (`npm start`, and every execution
 * environment here unless told otherwise), a start asks Temporal to hand the run's first workflow
 * task back in the start's reply, to that worker, instead of through its matching queue.
 *
 * Seen in the run's history (test/support/eager-start.ts). The in-memory stand-in has no eager
 * start (the tests skip there).
 */
import assert from 'node:assert/strict';
import { chain, step, trigger } from '../support/definitions';
import { firstTaskStartedWithTheStart } from '../support/eager-start';
import { testTemporalKind } from '../support/temporal';
import { execute, finished, publish, useExecEnv, waitFor, type ExecEnv, type OrgContext } from './support';

/** start ─▶ say (log) */
const oneLog = (key: string) => ({ name: 'One log', key, steps: chain(trigger(), step('say', 'log', { message: 'hi' })) });

async function runOne(env: ExecEnv, org: OrgContext, key: string): Promise<string> {
  const id = await execute(env, org, await publish(env, org, oneLog(key)));
  const body = await waitFor(env, org, id, finished);
  assert.equal(body.status, 'completed');
  return id;
}

describe('execute: eager workflow start through the worker in this process', function () {
  this.timeout(60_000);
  before(async function () {
    if ((await testTemporalKind()) === 'stand-in') this.skip();
  });
  const { env, org } = useExecEnv();

  it("hands the run's first workflow task to the worker in the start's reply", async () => {
    const id = await runOne(env, org, 'eager');
    assert.equal(await firstTaskStartedWithTheStart(env.temporal.client, id), true);
  });
});

describe('execute: a plain start when no worker runs beside the API (the control)', function () {
  this.timeout(60_000);
  before(async function () {
    if ((await testTemporalKind()) === 'stand-in') this.skip();
  });
  const { env, org } = useExecEnv({ eagerStarts: false });

  it('leaves the first workflow task to matching', async () => {
    const id = await runOne(env, org, 'plain');
    assert.equal(await firstTaskStartedWithTheStart(env.temporal.client, id), false);
  });
});
