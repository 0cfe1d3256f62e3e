/**
 * A compact diff of two workflow definitions for the audit trail: which
 * top-level fields changed, which steps were added, removed or changed, and
 * how many connections there were. Names only, never values (a step's config
 * may hold a literal webhook secret).
 */
type Definition = Record<string, unknown>;

export interface DefinitionDiff {
  fields: string[];
  steps: { added: string[]; removed: string[]; changed: string[] };
  connections: { before: number; after: number };
}

const stepsOf = (definition: Definition): Record<string, unknown> =>
  typeof definition.steps === 'object' && definition.steps !== null ? (definition.steps as Record<string, unknown>) : {};
const connectionCount = (definition: Definition): number => (Array.isArray(definition.connections) ? definition.connections.length : 0);
/** Equal as JSON, whatever the order of keys (a stored definition comes back from jsonb with its keys reordered). */
const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

const NOT_FIELDS = new Set(['steps', 'connections', 'triggers']);

export function definitionDiff(before: Definition, after: Definition): DefinitionDiff {
  // `triggers` is rebuilt from the trigger steps: a change to it is a change of those steps.
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !NOT_FIELDS.has(key));
  const fields = keys.filter((key) => !same(before[key], after[key])).sort();
  const was = stepsOf(before);
  const is = stepsOf(after);
  const added = Object.keys(is).filter((id) => !Object.hasOwn(was, id));
  const removed = Object.keys(was).filter((id) => !Object.hasOwn(is, id));
  const changed = Object.keys(is).filter((id) => Object.hasOwn(was, id) && !same(was[id], is[id]));
  if (!same(before.connections, after.connections)) fields.push('connections');
  return {
    fields,
    steps: { added: added.sort(), removed: removed.sort(), changed: changed.sort() },
    connections: { before: connectionCount(before), after: connectionCount(after) },
  };
}

/** What a first revision holds, in the same terms. */
export function definitionSummary(definition: Definition): { steps: string[]; connections: number } {
  return { steps: Object.keys(stepsOf(definition)).sort(), connections: connectionCount(definition) };
}
