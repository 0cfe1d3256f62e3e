/**
 * Reading environment variables for ./config.ts: each reader trims, applies the default when the variable
 * is unset or empty, and notes a problem naming the variable (then answers the default) when its value is
 * invalid, so start-up can report every invalid variable at once.
 */
import { parseCidr } from './cidr';

export type Env = Record<string, string | undefined>;

/** The readers of `env`, noting each invalid value in `problems`. */
export function envReader(env: Env, problems: string[]) {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${raw}")`);
      return undefined;
    }
  };

  const hostList = (name: string): string[] | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    const hosts = raw
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (const host of hosts)
      if (!/^(\*|(\*\.)?[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\])$/.test(host)) problems.push(`${name} has an invalid host pattern "${host}"`);
    return hosts;
  };

  /** A comma-separated list of address ranges (CIDR, or one address), each checked. */
  const cidrList = (name: string): string[] => {
    const ranges = (read(name) ?? '')
      .split(',')
      .map((range) => range.trim())
      .filter(Boolean);
    for (const range of ranges) {
      try {
        parseCidr(range);
      } catch (error) {
        problems.push(`${name}: ${(error as Error).message}`);
      }
    }
    return ranges;
  };

  return { read, integer, boolean, url, hostList, cidrList };
}
