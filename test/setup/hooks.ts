/**
 * Mocha root hooks shared by every test file. Suites start their own
 * dependencies through the helpers in test/support/; shared ones are closed here.
 */
import { createLogger } from '../../runtime/logger';
import { installTemporalRuntime } from '../../worker/worker';
import { closeTestDataSource } from '../support/database';

// The Temporal SDK logs every expected activity failure with a stack trace; tests only need its errors.
installTemporalRuntime(createLogger('error'));

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await closeTestDataSource();
  },
};
