/**
 * Temporal for tests. `createTestTemporalEnv('local')` gives a TestWorkflowEnvironment on
 * the same Temporal `npm start` resolves: the configured TEMPORAL_ADDRESS, else the real
 * Temporal CLI dev server when a binary is found (CI builds one with
 * scripts/install-temporal-cli), else the in-memory stand-in (test/temporal-server)
 * launched through its executable. `TEMPORAL_SERVER=stand-in` runs the stand-in's lane
 * (`npm run test:stand-in`); `TEMPORAL_SERVER=cli` makes a missing CLI an error.
 *
 * `'time-skipping'` always uses the stand-in's time-skipping test server: neither a
 * configured server nor the CLI dev server can skip time (Temporal's own test server is a
 * download). Tests that need it say "time skipping" in their title.
 */
import type { SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../config/config';
import {
  DEV_SERVER_DYNAMIC_CONFIG,
  STAND_IN_DEV_SERVER,
  STAND_IN_TEST_SERVER,
  findRealTemporalCli,
  type TemporalKind,
  type TemporalServerChoice,
} from '../../startup/temporal';

export { STAND_IN_DEV_SERVER, STAND_IN_TEST_SERVER };

export type TestTemporalKind = 'local' | 'time-skipping';

export interface TestTemporalOptions {
  /** Overrides TEMPORAL_SERVER (the benchmark runs both servers side by side). */
  server?: TemporalServerChoice;
  /** Custom search attributes to register on a local server (CLI or stand-in), e.g. `defineSearchAttributeKey('OrderId', 'KEYWORD')`. */
  searchAttributes?: Array<SearchAttributeKey<SearchAttributeType>>;
}

export async function createTestTemporalEnv(
  kind: TestTemporalKind = 'local',
  options: TestTemporalOptions = {},
): Promise<TestWorkflowEnvironment> {
  if (kind === 'time-skipping') {
    return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: STAND_IN_TEST_SERVER } } });
  }
  const config = loadConfig();
  const server = await testTemporalKind(options.server);
  if (server === 'configured') {
    return TestWorkflowEnvironment.createFromExistingServer({ address: config.temporalAddress, namespace: config.temporalNamespace });
  }
  const cli = server === 'cli' ? await findRealTemporalCli(config.temporalCliPath) : undefined;
  const start = () =>
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cli ?? STAND_IN_DEV_SERVER },
        namespace: config.temporalNamespace,
        searchAttributes: options.searchAttributes,
        // The real server runs with the settings `npm start` gives it.
        ...(cli ? { extraArgs: DEV_SERVER_DYNAMIC_CONFIG } : {}),
      },
    });
  // A server process that starts slowly on a loaded machine misses the SDK's connect deadline: start it once more.
  return start().catch((error: unknown) => {
    if (!(error instanceof Error) || !/Failed to connect before the deadline/.test(error.message)) throw error;
    return start();
  });
}

/** Which Temporal `createTestTemporalEnv('local')` uses (for test titles and skips). */
export async function testTemporalKind(choice?: TemporalServerChoice): Promise<TemporalKind> {
  const config = loadConfig();
  const server = choice ?? config.temporalServer;
  if (config.temporalAddress && !choice) return 'configured';
  if (server === 'stand-in') return 'stand-in';
  const cli = await findRealTemporalCli(config.temporalCliPath);
  if (!cli && server === 'cli') throw new Error('TEMPORAL_SERVER=cli but no Temporal CLI was found: run scripts/install-temporal-cli');
  return cli ? 'cli' : 'stand-in';
}
