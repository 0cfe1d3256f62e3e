/**
 * What changed between two revisions, step by step: added (only in `to`),
 * removed (only in `from`), changed (in both, with different content: type,
 * plugin, config, or the edges that reach it) and the same. Pure.
 */
import { graphOf } from '../graph/model';

type Json = Record<string, unknown>;
export type StepChange = 'added' | 'removed' | 'changed' | 'same';

export interface StepDiff {
  added: string[];
  removed: string[];
  changed: string[];
  change: Map<string, StepChange>;
}

/** The steps of a definition by id (steps as a map or as an array). */
export function stepsById(definition: Json | null | undefined): Map<string, Json> {
  const raw = definition?.steps;
  const entries: Array<[string, Json]> = Array.isArray(raw)
    ? (raw as Json[]).map((step) => [String(step.id), step])
    : raw && typeof raw === 'object'
      ? Object.entries(raw as Record<string, Json>)
      : [];
  return new Map(entries);
}

/** JSON with object keys sorted, so key order does not count as a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export function diffSteps(from: Json | null | undefined, to: Json | null | undefined): StepDiff {
  const before = stepsById(from);
  const after = stepsById(to);
  const incoming = (definition: Json | null | undefined) => {
    const edges = new Map<string, string[]>();
    for (const edge of graphOf(definition).edges) edges.set(edge.to, [...(edges.get(edge.to) ?? []), `${edge.from} ${edge.label}`]);
    return edges;
  };
  const edgesBefore = incoming(from);
  const edgesAfter = incoming(to);
  const change = new Map<string, StepChange>();
  for (const [id, step] of after) {
    const old = before.get(id);
    if (!old) change.set(id, 'added');
    else {
      const same =
        canonical({ ...old, dependsOn: undefined }) === canonical({ ...step, dependsOn: undefined }) &&
        canonical((edgesBefore.get(id) ?? []).sort()) === canonical((edgesAfter.get(id) ?? []).sort());
      change.set(id, same ? 'same' : 'changed');
    }
  }
  for (const id of before.keys()) if (!after.has(id)) change.set(id, 'removed');
  const having = (kind: StepChange) => [...change].filter(([, c]) => c === kind).map(([id]) => id);
  return { added: having('added'), removed: having('removed'), changed: having('changed'), change };
}
