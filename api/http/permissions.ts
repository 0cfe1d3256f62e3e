/**
 * Permissions are `<resource>:<verb>` strings; a role may hold wildcards
 * (`*`, `account:*`, `*:read`). Pure, so the roles catalog stays plain data.
 * Every route declaration names the permission it needs (api/http/route.ts).
 */
export type Resource =
  | 'account'
  | 'user'
  | 'grant'
  | 'role'
  | 'service_specification'
  | 'provider_specification'
  | 'service'
  | 'action'
  // The workflow engine: definitions, their executions, and secrets and variables.
  | 'workflow'
  | 'execution'
  | 'config'
  // The audit trail (read only: it is written by the routes themselves).
  | 'audit'
  // The caller's own API keys.
  | 'api_key';
export type Verb = 'read' | 'write' | 'execute' | 'signal' | 'cancel';
export type Permission = `${Resource}:${Verb}`;

export function permits(granted: readonly string[], needed: Permission): boolean {
  const [resource, verb] = needed.split(':');
  return granted.some((p) => p === '*' || p === needed || p === `${resource}:*` || p === `*:${verb}`);
}
