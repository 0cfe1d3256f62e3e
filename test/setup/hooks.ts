/**
 * Mocha root hooks shared by every test file. Suites start their own
 * dependencies through the helpers in test/support/; shared ones are closed here.
 */
import { loadConfig } from '../../config/config';
import { createLogger } from '../../config/logger';
import { obtainTemporalCli } from '../../startup/temporal';
import { installTemporalRuntime } from '../../worker/worker';
import { closeTestDataSource } from '../support/database';
import { testTemporalKind } from '../support/temporal';

// The Temporal SDK logs every expected activity failure with a stack trace; tests only need its errors.
installTemporalRuntime(createLogger('error'));

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    // As `npm start` does: without a CLI on this machine, download one or build it with Go, once (minutes).
    this.timeout(30 * 60_000);
    const config = loadConfig();
    if (!config.temporalAddress && config.temporalServer !== 'stand-in')
      await obtainTemporalCli({ cliPath: config.temporalCliPath, onProgress: (line) => console.log(line) });
    // Say once which Temporal this run's 'local' environments use (TEMPORAL_SERVER picks the lane).
    console.log(`Temporal for this run: ${await testTemporalKind()}`);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await closeTestDataSource();
  },
};
