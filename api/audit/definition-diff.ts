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
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function definitionDiff(before: Definition, after: Definition): DefinitionDiff {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => key !== 'steps' && key !== 'connections');
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
