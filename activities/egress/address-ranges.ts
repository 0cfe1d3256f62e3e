/**
 * Which IP addresses plugins may connect to. Private, loopback, link-local,
 * CGNAT, unique-local, multicast, documentation, benchmarking, local-use
 * NAT64 and reserved ranges are closed; IPv6 forms
 * that embed an IPv4 address (mapped `::ffff:a.b.c.d`, compatible, NAT64
 * `64:ff9b::/96`, 6to4, Teredo) are judged by the IPv4 address they carry, so `[::ffff:169.254.169.254]`
 * is the metadata address. Operators open ranges with EGRESS_ALLOW_CIDRS.
 */
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../../config/cidr';

/** Closed to plugins unless an operator opens them (CIDR, why). */
export const CLOSED_RANGES: ReadonlyArray<readonly [string, string]> = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private network'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private network'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.168.0.0/16', 'private network'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

/** A set of CIDR ranges (both families), from `a.b.c.d/n`, `x::/n` or a bare address. */
export class AddressRanges {
  private readonly list = new BlockList();
  private readonly reasons: Array<{ list: BlockList; reason: string }> = [];

  constructor(ranges: ReadonlyArray<string | readonly [string, string]>) {
    for (const range of ranges) {
      const [cidr, reason] = typeof range === 'string' ? [range, 'allowed'] : range;
      const { address, prefix, family } = parseCidr(cidr);
      this.list.addSubnet(address, prefix, family);
      const own = new BlockList();
      own.addSubnet(address, prefix, family);
      this.reasons.push({ list: own, reason: `${cidr}, ${reason}` });
    }
  }

  /** The range (and why it is listed) that holds the address, judged also by an IPv4 address it embeds. */
  match(address: string): string | undefined {
    for (const candidate of forms(address)) {
      const family = isIP(candidate) === 6 ? 'ipv6' : 'ipv4';
      if (!this.list.check(candidate, family)) continue;
      return this.reasons.find((entry) => entry.list.check(candidate, family))?.reason;
    }
    return undefined;
  }
}

/** The address itself, and the IPv4 address an IPv6 one embeds (mapped, compatible, NAT64, 6to4, Teredo). */
function forms(address: string): string[] {
  if (isIP(address) !== 6) return [address];
  const groups = expandIpv6(address);
  if (!groups) return [address];
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const embedded: string[] = [];
  if (zero(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) embedded.push(v4(groups[6], groups[7]));
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) embedded.push(v4(groups[6], groups[7]));
  if (groups[0] === 0x2002) embedded.push(v4(groups[1], groups[2]));
  // Teredo (2001::/32) carries the client's IPv4 address inverted in the last 32 bits.
  if (groups[0] === 0x2001 && groups[1] === 0) embedded.push(v4(groups[6] ^ 0xffff, groups[7] ^ 0xffff));
  return [address, ...embedded];
}

/** Eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
