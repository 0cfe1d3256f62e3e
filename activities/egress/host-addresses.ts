/**
 * The worker host's own interface addresses (`os.networkInterfaces()`, the
 * loopback interface aside: its addresses are in the closed loopback range).
 * A plugin connecting to one reaches whatever listens on this host's
 * interfaces (an API's `/metrics`, a sidecar), however public the address.
 *
 * Read at the first check and again when the last read is over a second old:
 * interfaces change rarely, and reading them costs tens of microseconds, too
 * much for every resolved address of every hop; a second is shorter than any
 * window in which a new address could matter. The ranges are rebuilt only
 * when the list changed.
 */
import { networkInterfaces } from 'node:os';
import { AddressRanges } from './address-ranges';

const REFRESH_MS = 1000;

let readAt = -Infinity;
let listed = '';
let own = new AddressRanges([]);

/** Why the address is this host's own (`192.0.2.2, an address of this worker host (eth0)`), judged also by an IPv4 address it embeds. */
export function hostAddressMatch(address: string): string | undefined {
  refresh();
  return own.match(address);
}

function refresh(): void {
  const now = performance.now();
  if (now - readAt < REFRESH_MS) return;
  readAt = now;
  const entries: Array<[string, string]> = [];
  for (const [name, addresses] of Object.entries(networkInterfaces()))
    for (const entry of addresses ?? []) if (!entry.internal) entries.push([entry.address, `an address of this worker host (${name})`]);
  const next = entries.map(([address]) => address).join(',');
  if (next === listed) return;
  listed = next;
  own = new AddressRanges(entries);
}
