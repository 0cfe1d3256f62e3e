/**
 * Temporal for tests. `createTestTemporalEnv('local')` gives a TestWorkflowEnvironment on:
 * the configured TEMPORAL_ADDRESS (via config), else the Temporal CLI dev server when a
 * binary is available, else the in-memory stand-in (test/temporal-server) launched through
 * its executable. `'time-skipping'` always uses the stand-in's time-skipping test server: neither
 * a configured server nor the CLI dev server can skip time (Temporal's own test server is a
 * download, unavailable offline).
 */
import type { SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../config/config';
import { STAND_IN_DEV_SERVER, STAND_IN_TEST_SERVER, findTemporalCli } from '../../runtime/temporal';

export { STAND_IN_DEV_SERVER, STAND_IN_TEST_SERVER };

export type TestTemporalKind = 'local' | 'time-skipping';

export interface TestTemporalOptions {
  /** Force the stand-in even when a configured address or a CLI exists. */
  standIn?: boolean;
  /** Custom search attributes to register on a local server (CLI or stand-in), e.g. `defineSearchAttributeKey('OrderId', 'KEYWORD')`. */
  searchAttributes?: Array<SearchAttributeKey<SearchAttributeType>>;
}

export async function createTestTemporalEnv(kind: TestTemporalKind = 'local', options: TestTemporalOptions = {}): Promise<TestWorkflowEnvironment> {
  if (kind === 'time-skipping') {
    return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: STAND_IN_TEST_SERVER } } });
  }
  const config = loadConfig();
  if (config.temporalAddress && !options.standIn) {
    return TestWorkflowEnvironment.createFromExistingServer({ address: config.temporalAddress, namespace: config.temporalNamespace });
  }
  const cli = options.standIn ? undefined : await findTemporalCli(config.temporalCliPath);
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli ?? STAND_IN_DEV_SERVER },
      namespace: config.temporalNamespace,
      searchAttributes: options.searchAttributes,
    },
  });
}

/** Which Temporal `createTestTemporalEnv('local')` will use (for test titles and skips). */
export async function testTemporalKind(): Promise<'configured' | 'cli' | 'stand-in'> {
  const config = loadConfig();
  if (config.temporalAddress) return 'configured';
  return (await findTemporalCli(config.temporalCliPath)) ? 'cli' : 'stand-in';
}
