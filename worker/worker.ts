/**
 * Temporal worker bootstrap: one task queue from configuration, the workflow
 * bundle built once per process, activities from their factory, and an
 * explicit shutdown grace time for in-flight activities.
 */
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type LogLevel,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { CodeExecPool } from '../activities/plugins/code-exec-pool';
import type { CodeExecSettings } from '../config/config';
import type { Logger } from '../config/logger';

/** Resolves to the TypeScript source under tsx and to the compiled file in dist/. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Webpack bundling takes seconds: do it once per process and share it between workers. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  return bundle;
}

let runtimeInstalled = false;

/** Routes the Temporal SDK's own log lines through the service logger (once per process). */
export function installTemporalRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const sdkLogger = logger.child({ component: 'temporal-sdk' });
  const levels: Record<LogLevel, (meta: object, message: string) => void> = {
    TRACE: (meta, message) => sdkLogger.trace(meta, message),
    DEBUG: (meta, message) => sdkLogger.debug(meta, message),
    INFO: (meta, message) => sdkLogger.info(meta, message),
    WARN: (meta, message) => sdkLogger.warn(meta, message),
    ERROR: (meta, message) => sdkLogger.error(meta, message),
  };
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => levels[entry.level]({ ...entry.meta }, entry.message)),
  });
}

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  shutdownGraceMs: number;
  activityDeps: ActivityDeps;
  /** The worker's code-exec threads and caps (default: CODE_EXEC_DEFAULTS). */
  codeExec?: CodeExecSettings;
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped (after `shutdown`). */
  done: Promise<void>;
  /** Stops polling, lets in-flight tasks finish within the grace time, then closes the connection. */
  shutdown(): Promise<void>;
}

/**
 * Worker options every execution worker uses (tests' workers too). Heartbeats
 * carry cancellation to running activities; they are throttled to one a
 * second so a cancelled code-exec or HTTP call stops within about a second.
 * Both settings are needed: the default applies to activities without a
 * heartbeat timeout, and every plugin call has one (15 s), for which the SDK
 * throttles to 80% of it (12 s) unless the maximum is lower.
 */
export const EXECUTION_WORKER_TUNING = { defaultHeartbeatThrottleInterval: '1 second', maxHeartbeatThrottleInterval: '1 second' } as const;

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const codeExecPool = new CodeExecPool(options.codeExec);
  let connection: NativeConnection | undefined;
  let worker: Worker;
  try {
    connection = await NativeConnection.connect({ address: options.address });
    worker = await Worker.create({
      connection,
      namespace: options.namespace,
      taskQueue: options.taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({ ...options.activityDeps, codeExecPool }),
      shutdownGraceTime: options.shutdownGraceMs,
      ...EXECUTION_WORKER_TUNING,
    });
  } catch (error) {
    await connection?.close();
    await codeExecPool.close();
    throw error;
  }
  const open = connection;
  const done = worker.run();
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
      // In-flight activities have finished or been cancelled within the grace time: the threads can go.
      await codeExecPool.close();
      await open.close();
    },
  };
}
