/** CIDR ranges as operators write them (`10.0.0.0/8`, `fd00::/8`, or a bare address for one host). */
import { isIP } from 'node:net';

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses one range; throws with the offending text when it is not one. */
export function parseCidr(text: string): Cidr {
  const [address, bits, extra] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) throw new Error(`"${text}" is not an IP address or CIDR range`);
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^[0-9]{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) throw new Error(`"${text}" has an invalid prefix length`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
