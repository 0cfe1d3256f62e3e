/**
 * Names of the Temporal workflow types the service starts. Shared by the API
 * (cron schedule actions) and the worker bundle, so the two never drift.
 */
export const EXECUTION_WORKFLOW_TYPE = 'runWorkflowExecution';

/** Version of the definition engine; stored on every revision it validated. */
export const ENGINE_VERSION = '1.0.0';
