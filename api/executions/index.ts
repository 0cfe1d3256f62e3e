/** Routes of the execution area: execute, executions, signals, logs, export, engine metadata and plugins, webhook ingress. */
import { accessTargets } from '../access/targets';
import { withAccessTargets, withDialect, type RouteDefinition } from '../http/route';
import type { AreaDeps } from '../area-deps';
import { approvalRoutes } from './approval-routes';
import { callbackKey } from './callback-token';
import type { ExecutionDeps } from './deps';
import { ExecutionEventHub } from './event-hub';
import { eventRoutes } from './event-routes';
import { executeRoutes } from './execute';
import { executionReadRoutes } from './execution-routes';
import { exportRoutes } from './export-routes';
import { logRoutes } from './log-routes';
import { metadataRoutes } from './metadata-routes';
import { rerunRoutes } from './rerun-routes';
import { signalRoutes } from './signal-routes';
import { executionStatsRoutes } from './stats-routes';
import { webhookRoutes } from './webhook-routes';

export { ExecutionEventHub };

export function executionRoutes(deps: AreaDeps): RouteDefinition[] {
  const executionDeps: ExecutionDeps = {
    dataSource: deps.dataSource,
    temporal: deps.temporal,
    eagerStarts: deps.eagerStarts,
    taskQueue: deps.config.temporalTaskQueue,
    temporalUiUrl: deps.config.temporalUiUrl,
    temporalRetentionDays: deps.config.temporalRetentionDays,
    publicBaseUrl: deps.config.publicBaseUrl,
    eventHub: deps.eventHub ?? new ExecutionEventHub(deps.dataSource),
    limits: deps.config.limits,
    callbackKey: callbackKey(deps.encryptionKey),
    plugins: deps.plugins,
  };
  return withAccessTargets(
    accessTargets(deps.dataSource),
    withDialect('problem', [
      ...executeRoutes(executionDeps),
      // Before GET /workflows/executions/{id}, which `stats` would match.
      ...executionStatsRoutes(executionDeps),
      ...executionReadRoutes(executionDeps),
      ...rerunRoutes(executionDeps),
      ...signalRoutes(executionDeps),
      ...approvalRoutes(executionDeps),
      ...logRoutes(executionDeps),
      ...exportRoutes(executionDeps),
      ...eventRoutes(executionDeps),
      ...metadataRoutes(executionDeps),
      ...webhookRoutes({ ...executionDeps, encryptionKey: deps.encryptionKey }),
    ]),
  );
}
