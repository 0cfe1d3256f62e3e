/** Every administration route. */
import type { DataSource } from 'typeorm';
import { withDialect, type RouteDefinition } from '../http/route';
import { accountRoutes } from './accounts';
import { actionSpecificationRoutes } from './action-specifications';
import { actionRoutes } from './actions';
import { serviceSpecificationRoutes } from './service-specifications';
import { grantRoutes } from './grants';
import { providerSpecificationRoutes } from './provider-specifications';
import { serviceRoutes } from './services';
import { userRoutes } from './users';

export function adminRoutes(deps: { dataSource: DataSource }): RouteDefinition[] {
  return withDialect('admin', [
    ...userRoutes(deps),
    ...grantRoutes(deps),
    ...accountRoutes(deps),
    ...serviceSpecificationRoutes(deps),
    ...actionSpecificationRoutes(deps),
    ...providerSpecificationRoutes(deps),
    ...serviceRoutes(deps),
    ...actionRoutes(deps),
  ]);
}
