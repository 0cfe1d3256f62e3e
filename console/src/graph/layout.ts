/**
 * Lays a step graph out left to right with dagre (layered layout: few crossings,
 * edges routed around nodes). Node boxes have a fixed size so 200 steps lay out
 * in well under half a second.
 */
import dagre from '@dagrejs/dagre';
import type { StepGraph } from './model';

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 52;

export interface Placed {
  nodes: Map<string, { x: number; y: number }>;
  edges: Array<{ from: string; to: string; label: string; points: Array<{ x: number; y: number }>; labelAt?: { x: number; y: number } }>;
  width: number;
  height: number;
}

export function layoutGraph(graph: StepGraph): Placed {
  type Box = { width: number; height: number; x?: number; y?: number };
  type EdgeBox = {
    label?: string;
    width?: number;
    height?: number;
    labelpos?: string;
    points?: Array<{ x: number; y: number }>;
    x?: number;
    y?: number;
  };
  const g = new dagre.graphlib.Graph<object, Box, EdgeBox>({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 60, edgesep: 12, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  graph.edges.forEach((edge, i) => {
    const labelled = edge.label !== '';
    g.setEdge(
      edge.from,
      edge.to,
      labelled ? { label: edge.label, width: edge.label.length * 6.5, height: 14, labelpos: 'c' } : {},
      `e${i}`,
    );
  });
  dagre.layout(g);
  const nodes = new Map<string, { x: number; y: number }>();
  for (const node of graph.nodes) {
    const placed = g.node(node.id);
    nodes.set(node.id, { x: placed.x ?? 0, y: placed.y ?? 0 });
  }
  const edges = graph.edges.map((edge, i) => {
    const placed = g.edge({ v: edge.from, w: edge.to, name: `e${i}` }) as {
      points?: Array<{ x: number; y: number }>;
      x?: number;
      y?: number;
    };
    return {
      ...edge,
      points: placed.points ?? [],
      labelAt: edge.label !== '' && placed.x !== undefined && placed.y !== undefined ? { x: placed.x, y: placed.y } : undefined,
    };
  });
  const label = g.graph() as { width?: number; height?: number };
  return { nodes, edges, width: label.width ?? 0, height: label.height ?? 0 };
}
