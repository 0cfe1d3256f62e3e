/**
 * Outbound network policy for plugins: a host is reachable when it matches the
 * allow list (default `*`) and not the deny list (default: cloud metadata
 * endpoints). Patterns are host names, `*.example.com` suffixes, or `*`.
 */
export interface EgressPolicy {
  allow: string[];
  deny: string[];
}

export const DEFAULT_EGRESS: EgressPolicy = {
  allow: ['*'],
  deny: ['169.254.169.254', 'metadata.google.internal', 'metadata.azure.com', '[fd00:ec2::254]'],
};

export function hostMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase();
  const p = pattern.trim().toLowerCase();
  if (p === '*') return true;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) || h === p.slice(2);
  return h === p;
}

export function egressAllowed(policy: EgressPolicy, host: string): boolean {
  return policy.allow.some((pattern) => hostMatches(host, pattern)) && !policy.deny.some((pattern) => hostMatches(host, pattern));
}
