/**
 * Routes of the product areas, built from the services they need. The
 * operational routes are added by createApp itself.
 */
import type { AreaDeps } from './area-deps';
import type { RouteDefinition } from './http/route';
import { workflowRoutes } from './workflows';
import { adminRoutes } from './admin';
import { executionRoutes } from './executions';
import { auditRoutes } from './audit';

export type { AreaDeps };

export function buildAreaRoutes(deps: AreaDeps): RouteDefinition[] {
  return [
    ...adminRoutes({
      dataSource: deps.dataSource,
      limits: deps.config.limits,
      apiKeys: deps.config.apiKeys,
      serviceTokens: deps.serviceTokens,
    }),
    ...workflowRoutes(deps),
    ...executionRoutes(deps),
    ...auditRoutes({ dataSource: deps.dataSource }),
  ];
}
