/**
 * Lays a step graph out left to right in layers, in time linear in the size of
 * the graph (plus the dummy points of long edges), so 1,000 steps lay out in
 * tens of milliseconds:
 *
 * 1. back edges (loops) are turned around by one depth-first walk, so the rest works on a DAG;
 * 2. ranks by longest path from the sources (triggers come first);
 * 3. an edge spanning several ranks gets one dummy point per rank it crosses (its route);
 * 4. order within each rank: barycenter of the neighbours, a bounded number of sweeps;
 * 5. vertical positions: each node as close as the order allows to the mean of its
 *    neighbours (isotonic regression, pool-adjacent-violators), a few passes.
 *
 * Pure: no DOM, so it runs under Node in tests too.
 */
import type { StepGraph } from './model';

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 52;

export interface Spacing {
  nodeWidth: number;
  nodeHeight: number;
  /** Vertical gap between two nodes of one rank. */
  nodeSep: number;
  /** Horizontal gap between two ranks (widened for edge labels). */
  rankSep: number;
  margin: number;
}

export const REGULAR: Spacing = { nodeWidth: NODE_WIDTH, nodeHeight: NODE_HEIGHT, nodeSep: 24, rankSep: 60, margin: 20 };
/** Small workflows: smaller boxes, closer together. */
export const COMPACT: Spacing = { nodeWidth: 164, nodeHeight: 44, nodeSep: 16, rankSep: 44, margin: 12 };

type Point = { x: number; y: number };

export interface Placed {
  nodes: Map<string, Point>;
  edges: Array<{ from: string; to: string; label: string; points: Point[]; labelAt?: Point }>;
  width: number;
  height: number;
  spacing: Spacing;
  /** Each node's rank (column), from 0. */
  ranks: Map<string, number>;
}

/** Ordering sweeps (each one pass down and one pass up): enough for few crossings, and bounded. */
const ORDER_SWEEPS = 4;
const POSITION_PASSES = 4;
/** Past this many dummy points long edges are drawn straight, to keep huge dense graphs fast. */
const MAX_DUMMIES = 40_000;
const DUMMY_SEP = 10;

export function layoutGraph(graph: StepGraph, spacing: Spacing = REGULAR): Placed {
  const n = graph.nodes.length;
  const index = new Map<string, number>();
  graph.nodes.forEach((node, i) => index.set(node.id, i));

  // Layout edges, once per ordered pair (several ports between two steps share a route).
  const pairs = new Map<string, { from: number; to: number }>();
  for (const edge of graph.edges) {
    const from = index.get(edge.from);
    const to = index.get(edge.to);
    if (from === undefined || to === undefined || from === to) continue;
    pairs.set(`${from}:${to}`, { from, to });
  }
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const { from, to } of pairs.values()) out[from].push(to);

  // 1. Back edges, found by one iterative depth-first walk (sources first), are reversed.
  const reversed = new Set<string>();
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const indegree = new Uint32Array(n);
  for (const { to } of pairs.values()) indegree[to]++;
  const starts = [...Array(n).keys()].sort((a, b) => (indegree[a] === 0 ? 0 : 1) - (indegree[b] === 0 ? 0 : 1));
  for (const start of starts) {
    if (state[start] !== 0) continue;
    const stack: Array<[number, number]> = [[start, 0]];
    state[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1]++;
        const w = out[v][i];
        if (state[w] === 1) reversed.add(`${v}:${w}`);
        else if (state[w] === 0) {
          state[w] = 1;
          stack.push([w, 0]);
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  const dagOut: number[][] = Array.from({ length: n }, () => []);
  const dagIn: number[][] = Array.from({ length: n }, () => []);
  for (const { from, to } of pairs.values()) {
    const [a, b] = reversed.has(`${from}:${to}`) ? [to, from] : [from, to];
    if (dagOut[a].includes(b)) continue;
    dagOut[a].push(b);
    dagIn[b].push(a);
  }

  // 2. Longest-path ranks in topological order (Kahn).
  const rank = new Int32Array(n);
  const remaining = Int32Array.from(dagIn, (ins) => ins.length);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (remaining[v] === 0) queue.push(v);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const w of dagOut[v]) {
      rank[w] = Math.max(rank[w], rank[v] + 1);
      if (--remaining[w] === 0) queue.push(w);
    }
  }
  // A node that feeds only later ranks moves right next to its first consumer (no long lead-in edge), triggers excepted.
  for (let head = queue.length - 1; head >= 0; head--) {
    const v = queue[head];
    if (dagIn[v].length === 0 || dagOut[v].length === 0) continue;
    const nearest = Math.min(...dagOut[v].map((w) => rank[w])) - 1;
    if (nearest > rank[v]) rank[v] = nearest;
  }

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

  // 5. Vertical positions: order kept, each vertex as near the mean of its neighbours as the gaps allow.
  const size = (v: number) => (vDummy[v] ? 0 : spacing.nodeHeight);
  const gap = (a: number, b: number) => (size(a) + size(b)) / 2 + (vDummy[a] || vDummy[b] ? DUMMY_SEP : spacing.nodeSep);
  const y = new Float64Array(total);
  for (const layer of layers) {
    let at = 0;
    layer.forEach((v, i) => {
      if (i > 0) at += gap(layer[i - 1], v);
      y[v] = at;
    });
  }
  const place = (layer: number[], neighbours: number[][]) => {
    if (layer.length === 0) return;
    const offsets = new Float64Array(layer.length);
    for (let i = 1; i < layer.length; i++) offsets[i] = offsets[i - 1] + gap(layer[i - 1], layer[i]);
    const wanted = layer.map((v, i) => {
      const ns = neighbours[v];
      if (ns.length === 0) return y[v] - offsets[i];
      let sum = 0;
      for (const w of ns) sum += y[w];
      return sum / ns.length - offsets[i];
    });
    const fitted = isotonic(wanted);
    layer.forEach((v, i) => (y[v] = fitted[i] + offsets[i]));
  };
  for (let pass = 0; pass < POSITION_PASSES; pass++) {
    if (pass % 2 === 0) for (let r = 1; r <= maxRank; r++) place(layers[r], vIn);
    else for (let r = maxRank - 1; r >= 0; r--) place(layers[r], vOut);
  }
  // The first rank (usually the triggers) follows what it feeds; a last pass down settles the rest.
  if (maxRank >= 0) place(layers[0], vOut);
  for (let r = 1; r <= maxRank; r++) place(layers[r], vIn);

  // Horizontal positions: columns, spaced for the widest edge label.
  const widestLabel = graph.edges.reduce((w, e) => Math.max(w, e.label.length * 6.5), 0);
  const rankSep = Math.min(Math.max(spacing.rankSep, widestLabel + 24), 240);
  const column = spacing.nodeWidth + rankSep;
  let top = Infinity;
  let bottom = -Infinity;
  for (let v = 0; v < total; v++) {
    top = Math.min(top, y[v] - size(v) / 2);
    bottom = Math.max(bottom, y[v] + size(v) / 2);
  }
  const shift = total === 0 ? 0 : spacing.margin - top;
  const at = (v: number): Point => ({ x: spacing.margin + vRank[v] * column + spacing.nodeWidth / 2, y: y[v] + shift });

  const nodes = new Map<string, Point>();
  const ranks = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    nodes.set(node.id, at(i));
    ranks.set(node.id, rank[i]);
  });
  const half = spacing.nodeWidth / 2;
  const edges = graph.edges.map((edge) => {
    const a = index.get(edge.from);
    const b = index.get(edge.to);
    if (a === undefined || b === undefined) return { ...edge, points: [] };
    const from = at(a);
    const to = at(b);
    if (a === b) {
      // A step that feeds itself: a loop over its top edge.
      const up = from.y - spacing.nodeHeight / 2;
      const points = [
        { x: from.x + half / 2, y: up },
        { x: from.x + half / 2, y: up - 18 },
        { x: from.x - half / 2, y: up - 18 },
        { x: from.x - half / 2, y: up },
      ];
      return { ...edge, points, labelAt: edge.label ? { x: from.x, y: up - 22 } : undefined };
    }
    const back = reversed.has(`${a}:${b}`);
    const chain = (back ? [...(chains.get(`${b}:${a}`) ?? [])].reverse() : (chains.get(`${a}:${b}`) ?? [])).map(at);
    const points = [{ x: from.x + (back ? -half : half), y: from.y }, ...chain, { x: to.x + (back ? half : -half), y: to.y }];
    const [p, q] = [points[0], points[1]];
    return { ...edge, points, labelAt: edge.label ? { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 - 4 } : undefined };
  });
  return {
    nodes,
    edges,
    ranks,
    spacing,
    width: total === 0 ? 0 : 2 * spacing.margin + maxRank * column + spacing.nodeWidth,
    height: total === 0 ? 0 : bottom - top + 2 * spacing.margin,
  };
}

/** The non-decreasing sequence nearest (least squares) to `values`: pool adjacent violators, linear time. */
export function isotonic(values: number[]): number[] {
  const means: number[] = [];
  const weights: number[] = [];
  for (const value of values) {
    let mean = value;
    let weight = 1;
    while (means.length > 0 && means[means.length - 1] > mean) {
      const m = means.pop()!;
      const w = weights.pop()!;
      mean = (m * w + mean * weight) / (w + weight);
      weight += w;
    }
    means.push(mean);
    weights.push(weight);
  }
  const result: number[] = [];
  means.forEach((mean, i) => {
    for (let k = 0; k < weights[i]; k++) result.push(mean);
  });
  return result;
}
