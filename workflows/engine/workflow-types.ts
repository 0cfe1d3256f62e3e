/**
 * Names of the Temporal workflow types the service starts. Shared by the API
 * (cron schedule actions, trigger plugins) and the worker bundle, so the two never drift.
 */
export const EXECUTION_WORKFLOW_TYPE = 'runWorkflowExecution';

/** Runs an operator trigger plugin's activate or deactivate in the worker (../plugins/trigger-lifecycle.ts). */
export const TRIGGER_LIFECYCLE_WORKFLOW_TYPE = 'runTriggerLifecycle';

/** Version of the definition engine; stored on every revision it validated. */
export const ENGINE_VERSION = '1.0.0';
