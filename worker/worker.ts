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
  type BundleOptions,
  type LogLevel,
  type WorkerInterceptors,
  type WorkerOptions as TemporalWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { CodeExecPool } from '../activities/plugins/code-exec-pool';
import type { CodeExecSettings } from '../config/config';
import type { Logger } from '../config/logger';

/** Resolves to the TypeScript source under tsx and to the compiled file in dist/. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

/** Loaded once per worker thread, before any run: stack traces off inside runs (unless WORKFLOW_STACK_TRACES). */
export const NO_STACK_TRACES_MODULE = require.resolve('../workflows/no-stack-traces');

/**
 * Modules each workflow thread evaluates once, before any workflow run, and shares (deep-frozen) with every run;
 * without this the SDK evaluates the bundle's modules afresh per run. The engine (its index and everything it
 * imports: all of workflows/engine/, jsep, acorn) and the workflow's own modules (workflows/*.ts and the parts of
 * `@temporalio/workflow` they import, which keep a run's state in the SDK's per-run activator, not at module scope)
 * are shared. Rule for code under workflows/: no per-run state at module scope. Per-run data lives in the run's
 * context, in objects the workflow function creates, or in arguments; an exported object is frozen (a write
 * throws); a module-scope cache may hold only values that are a function of their key and that no caller mutates;
 * a module-scope counter or binding is set and cleared within one synchronous call. docs/architecture.md
 * ("Shared engine modules") says why this is safe.
 */
export const PRELOADED_WORKFLOW_MODULES: readonly string[] = [require.resolve('../workflows/engine'), WORKFLOWS_PATH];

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Webpack bundling takes seconds: do it once per process and share it between workers. Extra workflow
 * interceptor modules (tracing's, when on) make another bundle, and so do stack traces turned on
 * (`WORKFLOW_STACK_TRACES`). Every bundle preloads the engine; the default one also workflows/no-stack-traces.ts.
 */
export function workflowBundle(workflowInterceptorModules: string[] = [], stackTraces = false): Promise<WorkflowBundleWithSourceMap> {
  const key = `${stackTraces}\n${workflowInterceptorModules.join('\n')}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules,
      preloadModules: [...(stackTraces ? [] : [NO_STACK_TRACES_MODULE]), ...PRELOADED_WORKFLOW_MODULES],
      webpackConfigHook: compiledForEs2022,
      logger: new DefaultLogger('WARN'),
    });
    bundles.set(key, bundle);
  }
  return bundle;
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * The bundle's own TypeScript compiled for ES2022, as tsconfig.json compiles the rest (and the engine lane tests it),
 * where the SDK asks swc for ES2017: object spread, optional chaining and class fields then run natively, not through
 * helpers (their helpers were about 5% of the workflow thread in a profile of fan-outs, issue 46).
 */
function compiledForEs2022(config: WebpackConfig): WebpackConfig {
  for (const rule of config.module?.rules ?? []) {
    const use =
      rule && typeof rule === 'object' && rule.use && typeof rule.use === 'object' && !Array.isArray(rule.use) ? rule.use : undefined;
    const options = use && typeof use.options === 'object' ? (use.options as { jsc?: { target?: string } }) : undefined;
    if (typeof use?.loader === 'string' && use.loader.includes('swc-loader') && options?.jsc) options.jsc.target = 'es2022';
  }
  return config;
}

let runtimeInstalled = false;
let runtimeMetricsAddress: string | undefined;

/**
 * Routes the Temporal SDK's own log lines through the service logger (once per process; a later call answers
 * what the first installed). With `metricsAddress`
 * (host:port), the SDK's core serves its metrics (workflow task latencies, activity schedule-to-start, sticky cache…)
 * there in the Prometheus text format at `/metrics`, durations in seconds (counters keep the SDK's names, without a
 * `_total` suffix: some already end in `_total`).
 */
export function installTemporalRuntime(logger: Logger, metricsAddress?: string): { metricsAddress?: string } {
  if (runtimeInstalled) return { metricsAddress: runtimeMetricsAddress };
  runtimeInstalled = true;
  runtimeMetricsAddress = metricsAddress;
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
    ...(metricsAddress
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: { bindAddress: metricsAddress, useSecondsForDurations: true, unitSuffix: true },
            },
          },
        }
      : {}),
  });
  return { metricsAddress };
}

/** What the worker adds when tracing is on (startup/tracing.ts makes it). */
export interface WorkerTracing {
  interceptors: WorkerInterceptors;
  sinks: NonNullable<TemporalWorkerOptions['sinks']>;
  /** Bundled into the workflow code (the SDK's own OpenTelemetry workflow interceptors). */
  workflowInterceptorModules: string[];
}

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  shutdownGraceMs: number;
  activityDeps: ActivityDeps;
  /** The worker's code-exec threads and caps (default: CODE_EXEC_DEFAULTS). */
  codeExec?: CodeExecSettings;
  /** Tracing's interceptors, span sink and workflow interceptor module (startup/tracing.ts); unset: none. */
  tracing?: WorkerTracing;
  /** Stack traces inside runs (`WORKFLOW_STACK_TRACES`; default off: workflows/no-stack-traces.ts). */
  stackTraces?: boolean;
}

export interface RunningWorker {
  worker: Worker;
  /** The worker's connection: a client on it can start runs eagerly, their first workflow task handed to this worker. */
  connection: NativeConnection;
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
      workflowBundle: await workflowBundle(options.tracing?.workflowInterceptorModules, options.stackTraces),
      activities: createActivities({ ...options.activityDeps, codeExecPool }),
      ...(options.tracing ? { interceptors: options.tracing.interceptors, sinks: options.tracing.sinks } : {}),
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
    connection: open,
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
