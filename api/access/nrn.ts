/**
 * NRNs (hierarchical resource names): parse, validate, format and compare.
 * Pure: no I/O, so authorization, visibility queries and property tests share
 * one definition of what "contains" means.
 *
 * `organization=1:account=*` names every account of organization 1; a `*` in
 * the containing NRN matches any id (or `*`) at that level, while a `*` in the
 * contained NRN only matches another `*`.
 */

export const NRN_LEVELS = ['organization', 'account', 'namespace', 'application', 'scope'] as const;
export type NrnLevel = (typeof NRN_LEVELS)[number];

/**
 * The contract's pattern, narrowed to what its prose says: each id is digits
 * or a single `*` (the contract's `[0-9*]+` would also admit `1*2`, which
 * names nothing).
 */
export const NRN_PATTERN =
  '^organization=([0-9]+|\\*)(:account=([0-9]+|\\*))?(:namespace=([0-9]+|\\*))?(:application=([0-9]+|\\*))?(:scope=([0-9]+|\\*))?$';
const NRN_REGEX = new RegExp(NRN_PATTERN);
/** Longest possible NRN with 18-digit ids; longer input is refused before matching. */
export const NRN_MAX_LENGTH = 160;

/**
 * Ids by level, from the organization down; `undefined` marks a level the NRN
 * skips (the contract's pattern lets any level below the organization be
 * omitted), `'*'` is a wildcard. No trailing `undefined`.
 */
export type Nrn = ReadonlyArray<string | undefined>;

export function parseNrn(text: string): Nrn | undefined {
  if (text.length > NRN_MAX_LENGTH || !NRN_REGEX.test(text)) return undefined;
  const ids: Array<string | undefined> = [];
  for (const segment of text.split(':')) {
    const [level, id] = segment.split('=');
    if (id !== '*' && id.length > 18) return undefined;
    ids[NRN_LEVELS.indexOf(level as NrnLevel)] = id;
  }
  return Array.from(ids);
}

export function isValidNrn(text: string): boolean {
  return parseNrn(text) !== undefined;
}

export function formatNrn(nrn: Nrn): string {
  return nrn.flatMap((id, i) => (id === undefined ? [] : [`${NRN_LEVELS[i]}=${id}`])).join(':');
}

/** Rewrites an NRN in canonical form (ids without leading zeros). */
export function canonicalNrn(text: string): string | undefined {
  const nrn = parseNrn(text);
  return nrn && formatNrn(nrn.map((id) => (id === undefined || id === '*' ? id : String(BigInt(id)))));
}

/**
 * True when `outer` names `inner` or one of its ancestors: every level `outer`
 * names is named by `inner` with a matching id (`*` in `outer` matches any id).
 * A level `outer` skips matches anything, as ids are unique system-wide.
 */
export function nrnContains(outer: Nrn, inner: Nrn): boolean {
  if (outer.length > inner.length) return false;
  return outer.every((id, i) => id === undefined || (inner[i] !== undefined && (id === '*' || id === inner[i])));
}

/** String form of {@link nrnContains}; unparseable input contains nothing. */
export function contains(outer: string, inner: string): boolean {
  const a = parseNrn(outer);
  const b = parseNrn(inner);
  return a !== undefined && b !== undefined && nrnContains(a, b);
}

/** True when some entry of a `visible_to` list contains the caller's NRN. */
export function isVisibleTo(visibleTo: readonly string[], callerNrn: string): boolean {
  const caller = parseNrn(callerNrn);
  if (!caller) return false;
  return visibleTo.some((entry) => {
    const parsed = parseNrn(entry);
    return parsed !== undefined && nrnContains(parsed, caller);
  });
}

/**
 * Every NRN that contains `nrn`: for each level it names, keep the id, use
 * `*`, or (below the organization) skip the level; at most 162 strings. Lets
 * the database answer visibility with an indexed array overlap.
 */
export function containingNrns(nrn: Nrn): string[] {
  const out = new Set<string>();
  let prefixes: Array<Array<string | undefined>> = [[]];
  nrn.forEach((id, level) => {
    const choices: Array<string | undefined> = id === undefined ? [undefined] : id === '*' ? ['*'] : [id, '*'];
    if (level > 0 && id !== undefined) choices.push(undefined);
    prefixes = prefixes.flatMap((prefix) => choices.map((choice) => [...prefix, choice]));
    for (const prefix of prefixes) if (prefix[prefix.length - 1] !== undefined) out.add(formatNrn(prefix));
  });
  return [...out];
}

/**
 * `text` in canonical form when it names the organization or one concrete resource
 * inside it, else why not: what may be placed at an NRN (a workflow, a config entry)
 * must never land in another tenant nor name many resources at once.
 */
export function nrnInOrganization(text: string, organizationId: string): { nrn: string } | { problem: string } {
  const canonical = canonicalNrn(text);
  const parsed = canonical === undefined ? undefined : parseNrn(canonical);
  if (parsed === undefined) return { problem: 'is not a valid NRN' };
  if (parsed[0] !== organizationId) return { problem: `must lie inside your organization (start with organization=${organizationId})` };
  if (!isConcrete(parsed)) return { problem: 'must name one resource (no * wildcards)' };
  return { nrn: canonical! };
}

/** The organization id of an NRN (may be `*`). */
export function organizationOf(nrn: Nrn): string {
  return nrn[0] ?? '*';
}

/** True when the NRN has no wildcard segment. */
export function isConcrete(nrn: Nrn): boolean {
  return nrn.every((id) => id !== '*');
}

export const organizationNrn = (organizationId: string | number): string => `organization=${organizationId}`;
export const accountNrn = (organizationId: string | number, accountId: string | number): string =>
  `organization=${organizationId}:account=${accountId}`;
