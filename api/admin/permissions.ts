/**
 * Permissions are `<resource>:<verb>` strings; a role may hold wildcards
 * (`*`, `account:*`, `*:read`). Pure, so the roles catalog stays plain data.
 */
export type Resource = 'account' | 'user' | 'grant' | 'role' | 'service_specification' | 'provider_specification' | 'service' | 'action';
export type Verb = 'read' | 'write';
export type Permission = `${Resource}:${Verb}`;

export function permits(granted: readonly string[], needed: Permission): boolean {
  const [resource, verb] = needed.split(':');
  return granted.some((p) => p === '*' || p === needed || p === `${resource}:*` || p === `*:${verb}`);
}
