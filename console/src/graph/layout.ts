/**
 * Lays a step graph out left to right in layers, in time linear in the size of
 * the graph (plus the dummy points of long edges):
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
import { rankGraph } from './layout-ranks';
import { layerGraph } from './layout-layers';
import { verticalPositions } from './layout-positions';

export { isotonic } from './layout-positions';

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
  // 1 and 2 (./layout-ranks.ts), 3 and 4 (./layout-layers.ts), 5 (./layout-positions.ts).
  const ranked = rankGraph(n, pairs);
  const { reversed, rank } = ranked;
  const layered = layerGraph(n, ranked);
  const { vRank, chains, total, maxRank } = layered;
  const { y, size } = verticalPositions(layered, spacing);

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
