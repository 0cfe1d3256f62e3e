/**
 * Steps 3 and 4 of the graph layout (./layout.ts): an edge spanning several ranks gets one dummy point per
 * rank it crosses (its route), then the order within each rank: by discovery, then barycenter sweeps of the
 * neighbours, a bounded number. Pure: no DOM.
 */
import type { RankedGraph } from './layout-ranks';

/** Ordering sweeps (each one pass down and one pass up): enough for few crossings, and bounded. */
const ORDER_SWEEPS = 4;
/** Past this many dummy points long edges are drawn straight, to keep huge dense graphs fast. */
const MAX_DUMMIES = 40_000;

/** Vertices (the `n` real nodes first, then dummy points), their edges both ways, and the rank layers in order. */
export interface LayeredGraph {
  vRank: number[];
  vDummy: boolean[];
  vIn: number[][];
  vOut: number[][];
  /** Each DAG edge's dummy points (`a:b`). */
  chains: Map<string, number[]>;
  total: number;
  maxRank: number;
  layers: number[][];
}

export function layerGraph(n: number, { dagOut, dagIn, rank, queue }: RankedGraph): LayeredGraph {
  // 3. Vertices: real nodes first, then dummy points of long edges; `chains` maps a DAG edge to its dummies.
  const vRank: number[] = Array.from(rank);
  const vDummy: boolean[] = new Array<boolean>(n).fill(false);
  const vIn: number[][] = Array.from({ length: n }, () => []);
  const vOut: number[][] = Array.from({ length: n }, () => []);
  const chains = new Map<string, number[]>();
  let dummies = 0;
  for (let a = 0; a < n; a++) for (const b of dagOut[a]) dummies += Math.max(0, rank[b] - rank[a] - 1);
  const routeLongEdges = dummies <= MAX_DUMMIES;
  const link = (a: number, b: number) => {
    vOut[a].push(b);
    vIn[b].push(a);
  };
  for (let a = 0; a < n; a++) {
    for (const b of dagOut[a]) {
      const chain: number[] = [];
      let previous = a;
      if (routeLongEdges) {
        for (let r = rank[a] + 1; r < rank[b]; r++) {
          const d = vRank.length;
          vRank.push(r);
          vDummy.push(true);
          vIn.push([]);
          vOut.push([]);
          link(previous, d);
          chain.push(d);
          previous = d;
        }
      }
      link(previous, b);
      chains.set(`${a}:${b}`, chain);
    }
  }
  const total = vRank.length;

  // 4. Order within ranks: first by discovery (topological order), then barycenter sweeps.
  const maxRank = vRank.reduce((m, r) => Math.max(m, r), -1);
  const layers: number[][] = Array.from({ length: maxRank + 1 }, () => []);
  const seen = new Uint8Array(total);
  const visit = (v: number) => {
    // Depth-first from each source, so a node's descendants start out near it.
    const stack = [v];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (seen[x]) continue;
      seen[x] = 1;
      layers[vRank[x]].push(x);
      for (let i = vOut[x].length - 1; i >= 0; i--) if (!seen[vOut[x][i]]) stack.push(vOut[x][i]);
    }
  };
  for (const v of queue) if (dagIn[v].length === 0) visit(v);
  for (let v = 0; v < total; v++) if (!seen[v]) visit(v);
  const pos = new Float64Array(total);
  const renumber = (layer: number[]) => layer.forEach((v, i) => (pos[v] = i));
  layers.forEach(renumber);
  const sortBy = (layer: number[], neighbours: number[][]) => {
    const key = new Map<number, number>();
    for (const v of layer) {
      const ns = neighbours[v];
      if (ns.length === 0) key.set(v, pos[v]);
      else {
        let sum = 0;
        for (const w of ns) sum += pos[w];
        // Ties keep the current order (the small bias below).
        key.set(v, sum / ns.length + pos[v] * 1e-6);
      }
    }
    // Nodes without neighbours on that side keep their place: sort the others into the remaining slots.
    const movable = layer.filter((v) => neighbours[v].length > 0).sort((a, b) => key.get(a)! - key.get(b)!);
    let next = 0;
    for (let i = 0; i < layer.length; i++) if (neighbours[layer[i]].length > 0) layer[i] = movable[next++];
    renumber(layer);
  };
  for (let sweep = 0; sweep < ORDER_SWEEPS; sweep++) {
    for (let r = 1; r <= maxRank; r++) sortBy(layers[r], vIn);
    for (let r = maxRank - 1; r >= 0; r--) sortBy(layers[r], vOut);
  }
  return { vRank, vDummy, vIn, vOut, chains, total, maxRank, layers };
}
