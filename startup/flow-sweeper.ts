/**
 * The flow sweep's short timer (executions/flow/sweep.ts): every API process starts the throttled and
 * debounced runs whose time has come, about every FLOW_SWEEP_INTERVAL_MS (docs/configuration.md); several
 * replicas sweeping at once is safe (SKIP LOCKED). Concurrency keys are swept with the start reconciler.
 */
import type { Logger } from 'pino';
import { FLOW_SWEEP_INTERVAL_MS, sweepDue, type PromoteDeps } from '../executions';
import { repeatEvery, type RepeatingTimer } from './repeating-timer';

export function startFlowSweeper(deps: PromoteDeps & { logger: Logger }, intervalMs = FLOW_SWEEP_INTERVAL_MS): RepeatingTimer {
  return repeatEvery(intervalMs, () =>
    sweepDue(deps).then(
      () => undefined,
      (error: unknown) => deps.logger.warn({ err: error }, 'flow sweep failed; the next sweep retries'),
    ),
  );
}
