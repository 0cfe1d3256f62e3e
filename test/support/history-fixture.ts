/**
 * Keeps a run's history as a replay fixture (test/fixtures/histories/, replayed by
 * test/execution/earlier-histories.test.ts), only when the test runs with RECORD_HISTORIES=1.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export async function keepHistoryFixture(handle: Pick<WorkflowHandle, 'fetchHistory'>, name: string): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- a switch of the tests that record their fixtures
  if (!process.env.RECORD_HISTORIES) return;
  const history = await handle.fetchHistory();
  writeFileSync(
    path.join(__dirname, `../fixtures/histories/${name}.history.bin`),
    temporal.api.history.v1.History.encode(history).finish(),
  );
}
