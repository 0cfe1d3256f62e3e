/**
 * Histories written by earlier releases of the execution workflow replay against today's bundle without
 * non-determinism: runs in flight during an upgrade go on. `test/fixtures/histories/` holds one binary
 * History (temporal.api.history.v1) per file, recorded before issue 27 changed the workflow (rules 1: a run that reads
 * nothing skips the variables' local activity, the last batch is written with the end, an http-request
 * step without a timeout is light): a 1-step light run, a 1-step http-request without a timeout (an
 * activity then), pure steps that set a variable, and a run that waited on a signal and then failed. The
 * `rules2-*` ones were recorded under rules 2, before records waited for the run to block (rules 3): three
 * pure steps, a light step, and a run that set a variable, waited on a signal, was signalled and completed.
 * The `rules3-*` ones were recorded under rules 3, before rules 4 changed what a run computes (a forEach's
 * projection and retries, split-in-batches' done port, comparisons with a missing side): a parallel forEach
 * with a projection and a jitter retry policy, the ten-item split-in-batches example, and a decider comparing
 * a missing output (which failed the run under rules 3). Replay compares commands, not values: what such a
 * run computes under its own rules is held by test/engine/engine-rules.test.ts.
 * Also `rules3-fan-out` (recorded under rules 3, before a running fan-out wrote its progress) and `rules4-fan-out`
 * (with those writes): a code-exec of four items, then a delay per item, one at a time.
 * And `rules4-approval-two-answers` (issue 42): a declared-answer wait answered by two approvers through the
 * approval gate's updates (four eyes, `required: 2`), then a decider and a log; its wait ids are the run's own
 * (`wait-ids-by-sequence`), so it replays with tracing on as well (test/observability/traces.test.ts).
 * And `rules5-last-step-end` (rule `end-with-last-light-step`): a one-step light run without outputs whose step's
 * local activity wrote the end, so the run has no finish local activity (recorded by
 * test/executions-api/last-step-end.test.ts with RECORD_HISTORIES=1), and `rules5-pure-steps`: three pure steps
 * written mid-way and again with the end, as rules 3 to 5 did before `records-when-drained` (recorded by
 * test/execution/execution-workflow.test.ts with RECORD_HISTORIES=1).
 * Add a history here whenever the workflow's commands change behind a patch or a field of the run's input.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../worker/worker';

const DIR = path.join(__dirname, '../fixtures/histories');

describe('execution workflow: histories of earlier releases replay', function () {
  this.timeout(120_000);

  it('replays every recorded history without non-determinism', async () => {
    const files = readdirSync(DIR).filter((file) => file.endsWith('.history.bin'));
    assert.ok(files.length >= 15, `histories found: ${files.join(', ')}`);
    const histories = files.map((file) => ({
      workflowId: file,
      history: temporal.api.history.v1.History.decode(readFileSync(path.join(DIR, file))),
    }));
    const replayed: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      assert.equal(result.error, undefined, `${result.workflowId} does not replay: ${String(result.error)}`);
      replayed.push(result.workflowId);
    }
    assert.deepEqual(replayed.sort(), files.sort());
  });
});
