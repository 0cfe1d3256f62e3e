/**
 * The execution workflow on a real Temporal SDK worker (against the resolved
 * Temporal: the CLI dev server, the stand-in or a configured server; the one test
 * that sleeps for days runs on the stand-in's time-skipping server), with in-memory activities:
 * signal delivery by update and by plain signal, failures, durable timers,
 * the state query, and clean replays of every history.
 */
import assert from 'node:assert/strict';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ENGINE_RULES, type ExecutionInput } from '../../workflows/engine';
import { deliverSignalUpdate, stateQuery } from '../../workflows/messages';
import { chain, executionInput, trigger } from '../support/definitions';
import { keepHistoryFixture } from '../support/history-fixture';
import { useExecutionWorker } from './execution-worker';

const inputFor = (doc: Record<string, unknown>, inputs: Record<string, unknown> = {}): ExecutionInput =>
  executionInput({ name: 'e2e', ...doc }, { inputs });

const manual = trigger();

describe('execution workflow on Temporal (time skipping)', function () {
  this.timeout(120_000);
  const { start } = useExecutionWorker('time-skipping');

  it('sleeps for days durably (time skipping) and times a wait out', async () => {
    const input = inputFor({
      steps: [
        manual,
        { id: 'pause', type: 'module', pluginType: 'delay', config: { duration: '3d' }, dependsOn: ['start'] },
        {
          id: 'wait',
          type: 'wait',
          pluginType: 'signal-wait',
          config: { signalName: 'never', timeout: '1d', onTimeout: 'continue' },
          dependsOn: ['pause'],
        },
      ],
      outputs: { timedOut: '${{ steps.wait.outputs.timedOut }}' },
    });
    const started = Date.now();
    const handle = await start(input);
    assert.deepEqual(await handle.result(), { timedOut: true });
    assert.ok(Date.now() - started < 10_000);
  });
});

describe('execution workflow on Temporal', function () {
  this.timeout(120_000);
  const suite = useExecutionWorker('local');
  const { start } = suite;
  const recorded = suite.recorded;

  it('runs a graph of pure steps and effectful steps, persisting events in batches', async () => {
    const input = inputFor(
      {
        steps: [
          manual,
          {
            id: 'setVar',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'region', value: '${{ vars.REGION }}' },
            dependsOn: ['start'],
          },
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://example.test/${{ variables.region }}' },
            dependsOn: ['setVar'],
          },
          {
            id: 'note',
            type: 'module',
            pluginType: 'log',
            config: { message: 'called ${{ steps.call.outputs.body.echoed }}' },
            dependsOn: ['call'],
          },
        ],
        outputs: { url: '${{ steps.call.outputs.body.echoed }}' },
      },
      {},
    );
    const handle = await start(input);
    assert.deepEqual(await handle.result(), { url: 'https://example.test/value-of-REGION' });
    const mine = recorded.batches.filter((batch) => batch.executionId === input.executionId);
    const events = mine.flatMap((batch) => batch.events);
    assert.deepEqual(
      events.filter((e) => e.type === 'step.completed').map((e) => e.stepId),
      ['start', 'setVar', 'call', 'note'],
    );
    assert.deepEqual(
      mine.flatMap((batch) => batch.logs).map((log) => log.message),
      ['called https://example.test/value-of-REGION'],
    );
    assert.ok(mine.length <= 3, `events go out in a few batches, not one per step (${mine.length})`);
    assert.deepEqual(recorded.finished.find((f) => f.executionId === input.executionId)?.status, 'completed');
  });

  it('writes a graph of pure steps once, with its end (rule records-when-drained); rules 5 wrote it twice', async () => {
    const pure = {
      variables: { n: { initialValue: 0 } },
      steps: chain(
        manual,
        { id: 'bump', type: 'module', pluginType: 'set-variable', config: { path: 'n', value: '${{ variables.n + 1 }}' } },
        { id: 'note', type: 'module', pluginType: 'log', config: { message: 'n is ${{ variables.n }}' } },
        { id: 'check', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.n >= 0', truePort: 'default' } },
      ),
    };
    const batchesUnder = async (rules: number) => {
      const input = { ...inputFor(pure), engineRules: rules };
      const handle = await start(input);
      await handle.result();
      const finish = recorded.finished.find((f) => f.executionId === input.executionId);
      // RECORD_HISTORIES=1: keep the rules-5 run's history as a fixture.
      if (rules === 5) await keepHistoryFixture(handle, 'rules5-pure-steps');
      return {
        batches: recorded.batches.filter((batch) => batch.executionId === input.executionId).length,
        withEnd: finish?.batch !== undefined,
      };
    };
    assert.deepEqual(await batchesUnder(ENGINE_RULES), { batches: 1, withEnd: true });
    assert.deepEqual(await batchesUnder(5), { batches: 2, withEnd: true });
  });

  it('delivers a signal by update exactly once; a second delivery is rejected', async () => {
    const input = inputFor({
      steps: [
        manual,
        { id: 'approval', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' }, dependsOn: ['start'] },
      ],
      outputs: { payload: '${{ steps.approval.outputs.payload }}' },
    });
    const handle = await start(input);
    let state = await handle.query(stateQuery);
    for (let i = 0; i < 50 && state.pendingWaits.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await handle.query(stateQuery);
    }
    assert.equal(state.status, 'waiting');
    assert.deepEqual(
      state.pendingWaits.map((w) => [w.stepId, w.signalNames]),
      [['approval', ['approve']]],
    );

    const wrongName = handle.executeUpdate(deliverSignalUpdate, { args: [{ name: 'other', payload: {}, signalId: 'sig_0' }] });
    await assert.rejects(wrongName, WorkflowUpdateFailedError);
    const [first, second] = await Promise.allSettled([
      handle.executeUpdate(deliverSignalUpdate, { args: [{ name: 'approve', payload: { ok: 1 }, signalId: 'sig_1' }] }),
      handle.executeUpdate(deliverSignalUpdate, { args: [{ name: 'approve', payload: { ok: 2 }, signalId: 'sig_2' }] }),
    ]);
    const outcomes = [first.status, second.status].sort();
    assert.deepEqual(outcomes, ['fulfilled', 'rejected']);
    const result = (await handle.result()) as { payload: { ok: number } };
    const winner = first.status === 'fulfilled' ? 1 : 2;
    assert.deepEqual(result, { payload: { ok: winner } });
  });

  it('is released by a plain Temporal signal of the same name', async () => {
    const input = inputFor({
      steps: [manual, { id: 'wait', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] }],
      outputs: { got: '${{ steps.wait.outputs.payload.value }}' },
    });
    const handle = await start(input);
    for (let i = 0; i < 50 && (await handle.query(stateQuery)).pendingWaits.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await handle.signal('go', { value: 42 });
    assert.deepEqual(await handle.result(), { got: 42 });
  });

  it('fails with the real cause as a non-retryable ApplicationFailure', async () => {
    const input = inputFor({
      steps: [
        manual,
        { id: 'stop', type: 'module', pluginType: 'fail', config: { message: 'no budget', code: 'BUDGET_EXCEEDED' }, dependsOn: ['start'] },
      ],
    });
    const handle = await start(input);
    await assert.rejects(handle.result(), (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError);
      const cause = error.cause as { type?: string; message?: string; nonRetryable?: boolean };
      assert.equal(cause.type, 'BUDGET_EXCEEDED');
      assert.equal(cause.message, 'no budget');
      assert.equal(cause.nonRetryable, true);
      return true;
    });
    const finished = recorded.finished.find((f) => f.executionId === input.executionId);
    assert.deepEqual(finished?.error, { type: 'BUDGET_EXCEEDED', message: 'no budget', stepId: 'stop' });
  });

  it('records a cancellation and ends as cancelled', async () => {
    const input = inputFor({
      steps: [manual, { id: 'wait', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'never' }, dependsOn: ['start'] }],
    });
    const handle = await start(input);
    for (let i = 0; i < 50 && (await handle.query(stateQuery)).pendingWaits.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await handle.cancel();
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && (error.cause as Error).name === 'CancelledFailure',
    );
    assert.equal((await handle.describe()).status.name, 'CANCELLED');
    assert.deepEqual(recorded.finished.find((f) => f.executionId === input.executionId)?.status, 'cancelled');
  });

  it('fails only the step that reads a variable without a value, when it reads it', async () => {
    const input = inputFor({
      steps: [
        manual,
        // Never runs: a variable without a value on an untaken branch harms nobody.
        { id: 'gate', type: 'decider', pluginType: 'conditional', config: { expression: 'false' }, dependsOn: ['start'] },
        { id: 'untaken', type: 'module', pluginType: 'log', config: { message: '${{ vars.MISSING_A }}' } },
        { id: 'fine', type: 'module', pluginType: 'log', config: { message: 'region ${{ vars.REGION }}' }, dependsOn: ['start'] },
        // A fallback does not hide it (engine-reference §3): the read itself fails.
        { id: 'reads', type: 'module', pluginType: 'log', config: { message: "${{ vars.MISSING_B || 'fallback' }}" }, dependsOn: ['fine'] },
      ],
      connections: [{ from: 'gate', to: 'untaken', sourcePort: 'true' }],
    });
    const handle = await start(input);
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && (error.cause as { type?: string }).type === 'CONFIG_ENTRY_UNRESOLVED',
    );
    const finished = recorded.finished.find((f) => f.executionId === input.executionId);
    assert.equal(finished?.error?.type, 'CONFIG_ENTRY_UNRESOLVED');
    assert.equal(finished?.error?.stepId, 'reads');
    assert.match(finished?.error?.message ?? '', /MISSING_B/);
    const events = recorded.batches.filter((b) => b.executionId === input.executionId).flatMap((b) => b.events);
    assert.ok(events.some((e) => e.type === 'step.completed' && e.stepId === 'fine'));
    assert.ok(!events.some((e) => e.stepId === 'untaken' && e.type !== 'step.skipped'));
  });

  it('continues past a missing variable when the reading step continues on error', async () => {
    const input = inputFor({
      steps: [
        manual,
        {
          id: 'reads',
          type: 'module',
          pluginType: 'log',
          config: { message: '${{ vars.MISSING_C }}' },
          errorHandling: { continueOnError: true },
          dependsOn: ['start'],
        },
        { id: 'after', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['reads'] },
      ],
    });
    const handle = await start(input);
    await handle.result();
    assert.equal(recorded.finished.find((f) => f.executionId === input.executionId)?.status, 'completed');
  });

  it('continues as new on a long history, carrying the walk, variables and numbering', async () => {
    //   start ─▶ init ─▶ body ─▶ inc ─▶ check ─true─▶ body (back-edge)
    //                                        └false─▶ done
    const input = inputFor({
      variables: { i: { initialValue: 0 } },
      steps: [
        manual,
        {
          id: 'body',
          type: 'module',
          pluginType: 'http-request',
          config: { url: 'https://example.test/${{ variables.i }}' },
          dependsOn: ['start'],
          joinStrategy: 'any',
        },
        {
          id: 'inc',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'i', value: '${{ variables.i + 1 }}' },
          dependsOn: ['body'],
        },
        { id: 'note', type: 'module', pluginType: 'log', config: { message: 'i=${{ variables.i }}' }, dependsOn: ['inc'] },
        { id: 'check', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.i < 8' }, dependsOn: ['note'] },
        { id: 'done', type: 'module', pluginType: 'no-op', config: {} },
      ],
      connections: [
        { from: 'check', to: 'body', sourcePort: 'true' },
        { from: 'check', to: 'done', sourcePort: 'false' },
      ],
      outputs: { i: '${{ variables.i }}', last: '${{ steps.body.outputs.body.echoed }}' },
    });
    input.historyEventLimit = 40;
    const handle = await start(input);
    assert.deepEqual(await handle.result(), { i: 8, last: 'https://example.test/7' });

    const firstRun = await suite.env.client.workflow.getHandle(input.executionId, handle.firstExecutionRunId).fetchHistory();
    assert.ok(
      firstRun.events?.some((event) => event.workflowExecutionContinuedAsNewEventAttributes),
      'the first run continued as new',
    );
    const batches = recorded.batches.filter((batch) => batch.executionId === input.executionId);
    const logs = batches.flatMap((batch) => batch.logs);
    assert.deepEqual(
      logs.map((log) => log.message),
      ['i=1', 'i=2', 'i=3', 'i=4', 'i=5', 'i=6', 'i=7', 'i=8'],
    );
    assert.deepEqual(
      logs.map((log) => log.seq),
      [0, 1, 2, 3, 4, 5, 6, 7],
      'log numbering goes on across runs',
    );
    let expected = 0;
    for (const batch of batches) {
      assert.equal(batch.firstEventSeq, expected, 'event numbering goes on across runs');
      expected += batch.events.length;
    }
    assert.equal(recorded.finished.find((f) => f.executionId === input.executionId)?.eventSeq, expected);
  });
});
