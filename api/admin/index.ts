/** Every administration route. */
import type { AdminDeps } from './deps';
import { withDialect, type RouteDefinition } from '../http/route';
import { accountRoutes } from './account-routes';
import { actionSpecificationRoutes } from './action-specification-routes';
import { actionRoutes } from './action-routes';
import { serviceSpecificationRoutes } from './service-specification-routes';
import { grantRoutes } from './grant-routes';
import { providerSpecificationRoutes } from './provider-specification-routes';
import { serviceRoutes } from './service-routes';
import { userRoutes } from './user-routes';
import { apiKeyRoutes } from './api-key-routes';
import { tokenRoutes } from './token-routes';

export function adminRoutes(deps: AdminDeps): RouteDefinition[] {
  return withDialect('admin', [
    ...userRoutes(deps),
    ...grantRoutes(deps),
    ...accountRoutes(deps),
    ...serviceSpecificationRoutes(deps),
    ...actionSpecificationRoutes(deps),
    ...providerSpecificationRoutes(deps),
    ...serviceRoutes(deps),
    ...actionRoutes(deps),
    ...apiKeyRoutes(deps),
    ...tokenRoutes(deps),
  ]);
}
