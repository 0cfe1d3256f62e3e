/**
 * Mocha root hooks shared by every test file. Suites start their own
 * dependencies through the helpers in test/support/; shared ones are closed here.
 */
import { closeTestDataSource } from '../support/database';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await closeTestDataSource();
  },
};
