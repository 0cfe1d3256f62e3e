/**
 * Activities registered by the worker, created by a factory that receives
 * their dependencies (database, keys, policies).
 */
import type { DataSource } from 'typeorm';
import type { WorkflowReach } from '../executions';
import type { Limits } from '../config/limits';
import type { Logger } from '../config/logger';
import { createExecutionActivities, type RecoveryStarts } from './create-execution-activities';
import { createTriggerActivities } from './create-trigger-activities';
import type { CodeExecPool } from './plugins/code-exec-pool';
import type { EgressPolicy } from './egress/policy';
import type { OperatorPlugins } from './plugins/operator/load-plugins';

export interface ActivityDeps {
  dataSource: DataSource;
  logger: Logger;
  encryptionKey: Buffer;
  temporalNamespace: string;
  /** The API's public base URL, for executions the worker starts (cron ticks, children). */
  publicBaseUrl?: string;
  /** The service's limits (config/limits.ts): runs this worker starts carry them. */
  limits: Limits;
  egress?: EgressPolicy;
  /** Threads that run code-exec scripts off the event loop (unset: the process's default pool). */
  codeExecPool?: CodeExecPool;
  /**
   * Where recovery runs (on-error, execution-failed-trigger) start when an execution fails. Unset: the
   * worker leaves them to the API's failure sweep (startup/execution-reconciler.ts).
   */
  recoveryStarts?: RecoveryStarts;
  /** The operator's own plugins (the PLUGINS setting), run beside the built-ins. */
  operatorPlugins?: OperatorPlugins;
  /** What a workflow may reach (api/access/workflow-reach.ts, passed in by the start-up code). */
  reach: WorkflowReach;
}

export function createActivities(deps: ActivityDeps) {
  return { ...createExecutionActivities(deps), ...createTriggerActivities(deps) };
}

/** Every activity the worker registers, as workflow code proxies them (`import type` only). */
export type Activities = ReturnType<typeof createActivities>;
