/**
 * The statements allowed straight on the driver's pg pool (`poolQuery`, db/sql.ts), and what
 * each saves. Everything else runs through TypeORM's entity manager. On the pool a statement
 * skips TypeORM's query-runner acquisition and release and runs as a named statement,
 * prepared once per connection (parsed and planned once, not on every call): worth it only
 * where a statement runs on every request or every step. `poolQuery` takes a name from this
 * list (the compiler refuses any other), so a new one is added here, with its reason.
 */
export const HOT_STATEMENTS = {
  'grants-of-caller': 'every authorized request reads the caller grants: no query runner, planned once per connection',
  'record-caller': 'a caller seen for the first time, on the same authorized-request path as grants-of-caller',
  'type-of-caller': 'the same path, when another request recorded the caller first',
  'api-key-is-live': 'every request with a token minted for an API key checks the key: no query runner, planned once',
  'execution-with-grants': 'every read of an execution by id (polling clients): grants and row in one prepared statement',
  'execution-status': 'a held read (?wait=) re-reads the status on every event of the execution',
  'events-after': 'an event stream reads the next events on every notification',
  'runnable-with-grants': 'every execute request reads grants, workflow and revision: no query runner, planned once',
  'publish-workflow': 'every publish of a new workflow: its three inserts in one prepared statement',
  'execution-insert': 'every start records its run: no query runner, planned once per connection',
  'execution-insert-audited': 'execution-insert with its audit event, for the API starts',
  'execution-run-id': 'every start records its Temporal run id: a plain UPDATE, cheaper than the query builder',
  'execution-finish': 'every run ends here (its last batch apart): no query runner, planned once per connection',
  'light-step-result': 'every light step reads the stored result of its call first: one primary-key read, planned once',
  'publish-workflow-upsert': 'publish-workflow with ON CONFLICT for an existing key',
} as const;

/**
 * A step batch (step-batch-statement.ts), on the path of every light step: one prepared
 * statement per batch shape (which tables it writes), named `step-batch-<shape>`.
 */
export type StepBatchStatement = `step-batch-${string}`;

export type HotStatement = keyof typeof HOT_STATEMENTS | StepBatchStatement;
