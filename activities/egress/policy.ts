/**
 * Outbound network policy for plugins. A request passes when its host name
 * matches the allow list (default `*`) and not the deny list (default: cloud
 * metadata names), and every address the host resolves to is outside the
 * closed ranges (./address-ranges.ts) or inside a range the operator opened
 * (`EGRESS_ALLOW_CIDRS`), and none is an address of the worker host itself
 * (./host-addresses.ts) unless the operator opened that very address. Host
 * patterns are names, `*.example.com` suffixes, or `*`.
 */
import { isIP } from 'node:net';
import { parseCidr } from '../../config/cidr';
import { AddressRanges, CLOSED_RANGES } from './address-ranges';
import { hostAddressMatch } from './host-addresses';

export interface EgressPolicy {
  allow: string[];
  deny: string[];
  /** Ranges opened despite being closed by default (`EGRESS_ALLOW_CIDRS`), e.g. `10.0.0.0/8`, `127.0.0.1`. */
  allowCidrs?: string[];
}

export const DEFAULT_EGRESS: EgressPolicy = {
  allow: ['*'],
  deny: ['169.254.169.254', 'metadata.google.internal', 'metadata.azure.com', 'fd00:ec2::254'],
  allowCidrs: [],
};

/** Why a request may not leave: its message names the setting that would open it. */
export class EgressDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressDenied';
  }
}

const closed = new AddressRanges(CLOSED_RANGES);
const opened = new WeakMap<EgressPolicy, { ranges: AddressRanges; addresses: AddressRanges }>();

/** A URL host as a comparable name: lower case, no brackets, no trailing dots (`metadata.google.internal.` is the same host). */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');
}

export function hostMatches(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern.trim());
  if (p === '*') return true;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) || h === p.slice(2);
  return h === p;
}

/** The host-name half of the policy, plus the address check when the host is an IP literal (no lookup will happen). */
export function checkHost(policy: EgressPolicy, host: string): void {
  const name = normalizeHost(host);
  if (!policy.allow.some((pattern) => hostMatches(name, pattern)) || policy.deny.some((pattern) => hostMatches(name, pattern)))
    throw new EgressDenied(`egress to ${name} is not allowed (EGRESS_ALLOW_HOSTS / EGRESS_DENY_HOSTS)`);
  if (isIP(name) !== 0) checkAddress(policy, name, name);
}

/**
 * The address half: an address in a closed range passes only inside a range
 * the operator opened. An address of the worker host itself passes only when
 * an entry names it alone (`10.20.0.5`, `10.20.0.5/32`): opening a network
 * for the services in it does not open the host the worker runs on.
 */
export function checkAddress(policy: EgressPolicy, address: string, host: string): void {
  const allowed = allowedRanges(policy);
  const own = hostAddressMatch(address);
  if (own !== undefined && allowed.addresses.match(address) === undefined) throw denied(address, host, own, ' naming the address itself');
  const range = closed.match(address);
  if (range === undefined || allowed.ranges.match(address) !== undefined) return;
  throw denied(address, host, range, '');
}

function denied(address: string, host: string, range: string, how: string): EgressDenied {
  const via = host === address ? '' : ` (${host} resolves to it)`;
  return new EgressDenied(`egress to ${address}${via} is not allowed: ${range}; operators open it with EGRESS_ALLOW_CIDRS${how}`);
}

/** The opened ranges, and among them the single addresses (a bare address, or a /32 or /128). */
function allowedRanges(policy: EgressPolicy): { ranges: AddressRanges; addresses: AddressRanges } {
  let allowed = opened.get(policy);
  if (!allowed) {
    const cidrs = policy.allowCidrs ?? [];
    const single = cidrs.filter((cidr) => {
      const { prefix, family } = parseCidr(cidr);
      return prefix === (family === 'ipv4' ? 32 : 128);
    });
    opened.set(policy, (allowed = { ranges: new AddressRanges(cidrs), addresses: new AddressRanges(single) }));
  }
  return allowed;
}
