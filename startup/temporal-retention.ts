/**
 * Temporal's namespace retention, set to match the execution retention: every
 * process that starts the service sets it on its namespace (the dev server
 * `npm start` runs, `start:cluster`'s server, docker compose's), when it
 * differs, and reads back what the namespace keeps, so an execution's Temporal
 * link is left out once Temporal has deleted its history
 * (api/executions/serialize.ts). Several replicas setting the same value at
 * once is harmless.
 */
import type { Connection } from '@temporalio/client';
import { msToTs, optionalTsToMs } from '@temporalio/common/lib/time';
import type { Logger } from '../config/logger';

const DAY_MS = 86_400_000;

/**
 * Sets the namespace's retention to `days` (0: leaves it as it is) and answers the retention it
 * has afterwards, in days; undefined when the server does not say (a stand-in without namespace
 * updates: then nothing is changed, with a warning).
 */
export async function applyNamespaceRetention(
  workflowService: Connection['workflowService'],
  namespace: string,
  days: number,
  logger: Logger,
): Promise<number | undefined> {
  try {
    const described = await workflowService.describeNamespace({ namespace });
    const currentMs = optionalTsToMs(described.config?.workflowExecutionRetentionTtl);
    if (days === 0 || currentMs === days * DAY_MS) return currentMs === undefined ? undefined : currentMs / DAY_MS;
    await workflowService.updateNamespace({
      namespace,
      config: { workflowExecutionRetentionTtl: msToTs(days * DAY_MS) },
    });
    logger.info(
      { namespace, retentionDays: days, previousDays: currentMs === undefined ? undefined : currentMs / DAY_MS },
      'Temporal namespace retention set',
    );
    return days;
  } catch (error) {
    logger.warn(
      { err: error, namespace, retentionDays: days },
      'could not set the Temporal namespace retention (TEMPORAL_RETENTION_DAYS); links to Temporal assume it',
    );
    return undefined;
  }
}
