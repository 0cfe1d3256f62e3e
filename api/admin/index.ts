/** Every administration route. */
import type { DataSource } from 'typeorm';
import type { RouteDefinition } from '../http/route';
import { accountRoutes } from './accounts';
import { grantRoutes } from './grants';
import { userRoutes } from './users';

export function adminRoutes(deps: { dataSource: DataSource }): RouteDefinition[] {
  return [...userRoutes(deps), ...grantRoutes(deps), ...accountRoutes(deps)];
}
