/** The audit trail's read route (administration dialect); the recorder every write route uses is trail.ts. */
import { accessTargets } from '../access/targets';
import { withAccessTargets, withDialect, type RouteDefinition } from '../http/route';
import { auditEventRoutes } from './audit-routes';
import type { AuditDeps } from './deps';

export function auditRoutes(deps: AuditDeps): RouteDefinition[] {
  return withAccessTargets(accessTargets(deps.dataSource), withDialect('admin', auditEventRoutes(deps)));
}
