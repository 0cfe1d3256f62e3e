/**
 * Where the arrow keys go from a step on a laid-out graph: → to a step it feeds,
 * ← to a step feeding it (of several, the nearest in height), ↑/↓ to the
 * neighbour in its column, Home to the first step (leftmost, then topmost).
 * Pure: the view moves the focus.
 */
import type { Placed } from './layout';
import type { StepGraph } from './model';

export interface Navigator {
  /** The first step (the graph's one tab stop until another is focused). */
  first: string | undefined;
  next(from: string, key: string): string | undefined;
}

export function navigator(graph: StepGraph, placed: Pick<Placed, 'nodes' | 'ranks'>): Navigator {
  const successors = new Map<string, string[]>();
  const predecessors = new Map<string, string[]>();
  const add = <K>(map: Map<K, string[]>, key: K, value: string) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const edge of graph.edges) {
    if (edge.from === edge.to || !placed.nodes.has(edge.from) || !placed.nodes.has(edge.to)) continue;
    add(successors, edge.from, edge.to);
    add(predecessors, edge.to, edge.from);
  }
  const y = (id: string) => placed.nodes.get(id)?.y ?? 0;
  const columns = new Map<number, string[]>();
  for (const [id, rank] of placed.ranks) add(columns, rank, id);
  const place = new Map<string, number>();
  for (const column of columns.values()) {
    column.sort((a, b) => y(a) - y(b));
    column.forEach((id, i) => place.set(id, i));
  }
  const first = [...placed.nodes.entries()].sort(([, a], [, b]) => a.x - b.x || a.y - b.y)[0]?.[0];
  const nearest = (from: string, candidates: string[] | undefined) =>
    candidates?.reduce((best, c) => (Math.abs(y(c) - y(from)) < Math.abs(y(best) - y(from)) ? c : best));
  return {
    first,
    next(from, key) {
      if (key === 'ArrowRight') return nearest(from, successors.get(from));
      if (key === 'ArrowLeft') return nearest(from, predecessors.get(from));
      if (key === 'Home') return first;
      const column = columns.get(placed.ranks.get(from) ?? -1) ?? [];
      const i = place.get(from);
      if (i === undefined) return undefined;
      if (key === 'ArrowUp') return column[i - 1];
      if (key === 'ArrowDown') return column[i + 1];
      return undefined;
    },
  };
}
