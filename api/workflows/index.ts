/** Routes of the workflow-definition area: definitions, revisions, aliases, triggers, config entries. */
import { accessTargets } from '../access/targets';
import { withAccessTargets, withDialect, type RouteDefinition } from '../http/route';
import type { AreaDeps } from '../area-deps';
import { aliasRoutes } from './alias-routes';
import { configRoutes } from './config-routes';
import { definitionRoutes } from './definition-routes';
import type { WorkflowDeps } from './deps';
import { pluginTriggerRegistrars } from './plugin-trigger-registrar';
import { defaultRegistrars, type TriggerRegistrars } from './registrars';
import { retentionRoutes } from './retention-routes';
import { triggerRoutes } from './trigger-routes';

export interface WorkflowRouteOptions {
  /** Replaces registrars by trigger kind (tests inject failing ones). */
  registrars?: Partial<TriggerRegistrars>;
}

export function workflowRoutes(deps: AreaDeps, options: WorkflowRouteOptions = {}): RouteDefinition[] {
  const registrars = {
    ...defaultRegistrars(deps.temporal, deps.config.temporalTaskQueue),
    ...pluginTriggerRegistrars(deps.temporal, deps.config.temporalTaskQueue, deps.config.publicBaseUrl, deps.plugins),
  };
  for (const [kind, registrar] of Object.entries(options.registrars ?? {})) if (registrar) registrars[kind] = registrar;
  const workflowDeps: WorkflowDeps = {
    dataSource: deps.dataSource,
    publicBaseUrl: deps.config.publicBaseUrl,
    encryptionKey: deps.encryptionKey,
    registrars,
    limits: deps.config.limits,
    executionRetentionDays: deps.config.limits.executionRetentionDays,
    plugins: deps.plugins,
  };
  const targets = accessTargets(deps.dataSource);
  return withAccessTargets(targets, [
    ...withDialect('problem', [
      ...definitionRoutes(workflowDeps),
      ...aliasRoutes(workflowDeps),
      ...triggerRoutes(workflowDeps),
      ...retentionRoutes(workflowDeps),
    ]),
    ...withDialect('config', configRoutes(workflowDeps)),
  ]);
}
