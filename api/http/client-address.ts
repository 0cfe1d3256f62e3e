/**
 * The address a request came from, for the audit trail. The socket's peer,
 * unless that peer is one of the operator's trusted proxies (TRUSTED_PROXIES):
 * then the `X-Forwarded-For` entries are read from the right (the ones the
 * trusted proxies appended), skipping those that are trusted proxies too, and
 * the first other one is the client. A header from anyone else is the client's
 * own claim, and is not believed.
 */
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../../config/cidr';

export type TrustedProxies = BlockList;

/** The ranges of TRUSTED_PROXIES (already validated by config), as one list. */
export function trustedProxies(ranges: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const range of ranges) {
    const { address, prefix, family } = parseCidr(range);
    list.addSubnet(address, prefix, family);
  }
  return list;
}

export function clientAddress(peer: string | undefined, forwardedFor: string, trusted: TrustedProxies): string | undefined {
  let address = normalise(peer);
  if (address === undefined) return undefined;
  const hops = forwardedFor
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  while (isTrusted(address, trusted) && hops.length > 0) {
    const next = normalise(hops.pop());
    // A malformed hop ends the chain: the last address known to be real is the answer.
    if (next === undefined) break;
    address = next;
  }
  return address;
}

function isTrusted(address: string, trusted: TrustedProxies): boolean {
  return trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** An IP address, IPv4-mapped IPv6 written as IPv4; undefined for anything else. */
function normalise(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) === 0 ? undefined : plain;
}
