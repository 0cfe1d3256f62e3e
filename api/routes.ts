/**
 * Routes of the product areas, built from the services they need. The
 * operational routes are added by createApp itself.
 */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import type { RouteDefinition } from './http/route';
import { workflowRoutes } from './workflows';
import { adminRoutes } from './admin';
import { executionRoutes } from './executions';

export interface AreaDeps {
  config: AppConfig;
  dataSource: DataSource;
  temporal: Client;
  encryptionKey: Buffer;
}

export function buildAreaRoutes(deps: AreaDeps): RouteDefinition[] {
  return [...adminRoutes({ dataSource: deps.dataSource }), ...workflowRoutes(deps), ...executionRoutes(deps)];
}
