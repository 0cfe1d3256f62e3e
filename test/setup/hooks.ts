/**
 * Mocha root hooks shared by every test file. Suites start their own
 * dependencies (database, Temporal) through the helpers in test/support/.
 */
export const mochaHooks = {};
