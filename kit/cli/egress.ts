/**
 * The outbound policy of a local `run <file>`: the server's default (loopback,
 * private and link-local ranges closed), opened as the worker's is by the
 * operator's settings when they are in the environment (EGRESS_ALLOW_CIDRS,
 * EGRESS_ALLOW_HOSTS, EGRESS_DENY_HOSTS), and by `--allow-egress CIDR[,CIDR…]`
 * or `--allow-loopback` for a run that calls a service on this machine.
 */
import { parseCidr } from '../../config/cidr';
import type { EgressPolicy } from '../../activities/egress/policy';
import type { CliEnvironment } from './environment';
import { CliError, EXIT } from './output';

/** What `--allow-loopback` opens: the IPv4 loopback range and the IPv6 loopback address. */
export const LOOPBACK_RANGES = ['127.0.0.0/8', '::1'];

export interface EgressOptions {
  'allow-egress'?: string[];
  'allow-loopback'?: boolean;
}

/** The run's policy over the server's default, or undefined when nothing opens or narrows it. */
export function localEgress(options: EgressOptions, environment: CliEnvironment): Partial<EgressPolicy> | undefined {
  const fromFlags = (options['allow-egress'] ?? []).flatMap((value) => ranges(value, '--allow-egress'));
  const allowCidrs = [
    ...ranges(environment.egressAllowCidrs ?? '', 'EGRESS_ALLOW_CIDRS'),
    ...fromFlags,
    ...(options['allow-loopback'] ? LOOPBACK_RANGES : []),
  ];
  const policy: Partial<EgressPolicy> = {
    ...(allowCidrs.length > 0 ? { allowCidrs } : {}),
    ...(environment.egressAllowHosts !== undefined ? { allow: hosts(environment.egressAllowHosts) } : {}),
    ...(environment.egressDenyHosts !== undefined ? { deny: hosts(environment.egressDenyHosts) } : {}),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

function ranges(value: string, source: string): string[] {
  const list = value
    .split(',')
    .map((range) => range.trim())
    .filter(Boolean);
  for (const range of list) {
    try {
      parseCidr(range);
    } catch (error) {
      throw new CliError(`${source}: ${(error as Error).message} (write a range such as 127.0.0.0/8, or an address)`, EXIT.usage);
    }
  }
  return list;
}

function hosts(value: string): string[] {
  return value
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
}
