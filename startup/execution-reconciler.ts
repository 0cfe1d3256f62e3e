/**
 * The start reconciler's timer: every API process sweeps for executions whose
 * start was lost (executions/reconcile-starts.ts says what a sweep repairs and
 * why that is safe across replicas), then for failed executions whose recovery
 * runs nobody started (executions/dispatch-failure.ts), then for sub-workflow
 * children that ended with their parent unrecorded (executions/settle-children.ts), then for flow-control
 * keys whose queued runs have a free slot (executions/flow/sweep.ts),
 * then forgets old light step results, on a timer started and stopped with the service.
 */
import { LightStepResultRepository } from '../db/repositories/light-step-result-repository';
import { ExecutionSweepRepository } from '../db/repositories/execution-sweep-repository';
import {
  checkOpenRuns,
  settleChildren,
  sweepFailures,
  sweepOnce,
  sweepQueuedKeys,
  type DispatchDeps,
  type OpenRunsSweepResult,
  type ReconcilerDeps,
  type SweepOptions,
} from '../executions';
import { repeatEvery } from './repeating-timer';

export const DEFAULT_INTERVAL_MS = 30_000;

/**
 * A light step's stored result matters until Temporal has recorded it, which is the end of the workflow
 * task it ran in (seconds; longer only while no worker is up to retry that task): a day is ample.
 */
export const LIGHT_STEP_RESULT_RETENTION_MS = 24 * 3600_000;

export interface RunningReconciler {
  /** Stops the timer and waits for a sweep in flight. */
  stop(): Promise<void>;
}

/** Sweeps every `intervalMs` (first sweep one interval after start) on a repeating timer: never two at once. */
export function startExecutionReconciler(
  deps: ReconcilerDeps & DispatchDeps,
  options: SweepOptions & {
    intervalMs?: number;
    /** Rows looked at in Temporal per pass by the open-runs sweep (default 50). */
    openRunsBatchSize?: number;
    /** How old an open row is, and how long since it was looked at, before the open-runs sweep looks (default 15 s). */
    openRunsGraceMs?: number;
    /** After each open-runs pass: what it did, and how many open runs of the namespace have a failing workflow task. */
    onOpenRuns?: (result: OpenRunsSweepResult, taskFailing: number) => void;
  } = {},
): RunningReconciler {
  return repeatEvery(options.intervalMs ?? DEFAULT_INTERVAL_MS, () =>
    sweepOnce(deps, options)
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'execution start sweep failed; the next sweep retries'),
      )
      // Failures whose recovery runs nobody started (the recording worker died first, or a start failed).
      .then(() => sweepFailures(deps, options))
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'failure sweep failed; the next sweep retries'),
      )
      .then(() => settleChildren(deps, options))
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'children sweep failed; the next sweep retries'),
      )
      // Runs Temporal closed behind the rows' back, and runs whose workflow task keeps failing.
      .then(async () => {
        const result = await checkOpenRuns(deps, { ...options, batchSize: options.openRunsBatchSize, graceMs: options.openRunsGraceMs });
        if (options.onOpenRuns) {
          const failing = await new ExecutionSweepRepository(deps.dataSource.manager).countTaskFailing(deps.temporal.options.namespace);
          options.onOpenRuns(result, failing);
        }
      })
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'open-runs sweep failed; the next sweep retries'),
      )
      // Flow control: queued runs of concurrency keys with a free slot (a promotion lost with its process, a slot
      // freed by the sweeps above) are promoted and started (executions/flow/sweep.ts).
      .then(() => sweepQueuedKeys(deps, { organizationId: options.organizationId }))
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'flow-control key sweep failed; the next sweep retries'),
      )
      .then(() => new LightStepResultRepository(deps.dataSource.manager).prune(new Date(Date.now() - LIGHT_STEP_RESULT_RETENTION_MS)))
      .then(
        () => undefined,
        (error: unknown) => deps.logger.warn({ err: error }, 'pruning light step results failed; the next sweep retries'),
      ),
  );
}
