/**
 * Draws a laid-out step graph as SVG (./view.ts adds zoom, pan and the keyboard): the arrow marker and the
 * icons used, each edge as a curve with its label, and each node as a box with its icon, title and subtitle,
 * carrying `data-step`, `data-kind`, `data-plugin` and a `status-…` class. Also how labels are measured in
 * the page's font.
 */
import { s } from '../dom';
import { icon, iconName, iconSymbols } from './icons';
import { TEXT_X, type Measure, type NodeLabels } from './labels';
import type { Placed } from './layout';
import type { StepGraph } from './model';

/** The drawn graph: the SVG, the group zoom and pan transform, the focus ring, and each step's node. */
export interface DrawnGraph {
  svg: SVGSVGElement;
  viewport: SVGGElement;
  ring: SVGRectElement;
  nodeElements: Map<string, SVGGElement>;
}

/** `labelOf`: a step's accessible name (its status included). */
export function drawGraph(graph: StepGraph, placed: Placed, labels: NodeLabels, labelOf: (id: string) => string): DrawnGraph {
  const { nodeWidth: width, nodeHeight: height } = placed.spacing;
  const viewport = s('g', { class: 'viewport' });
  const svg = s(
    'svg',
    {
      class: 'graph-svg',
      role: 'group',
      'aria-label': `Workflow graph with ${graph.nodes.length} steps. Arrow keys move between connected steps, Enter or Space selects one.`,
    },
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' },
        s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }),
      ),
      ...iconSymbols(graph.nodes.map((node) => iconName(node.type, node.plugin))),
    ),
    viewport,
  );
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  // One focus ring, moved to the focused step (shown for keyboard focus only, by CSS).
  const ring = s('rect', { class: 'focus-ring', x: -4, y: -4, width: width + 8, height: height + 8, rx: 11, visibility: 'hidden' });
  viewport.append(edgeLayer, nodeLayer, ring);
  for (const edge of placed.edges) {
    if (edge.points.length === 0) continue;
    edgeLayer.append(
      s('path', { class: 'edge', d: curve(edge.points), 'marker-end': 'url(#arrow)', 'data-from': edge.from, 'data-to': edge.to }),
    );
    if (edge.labelAt)
      edgeLayer.append(s('text', { class: 'edge-label', x: edge.labelAt.x, y: edge.labelAt.y, 'text-anchor': 'middle' }, edge.label));
  }

  const nodeElements = new Map<string, SVGGElement>();
  for (const node of graph.nodes) {
    const at = placed.nodes.get(node.id);
    if (!at) continue;
    const subtitle = [node.type, node.plugin].filter(Boolean).join(' · ');
    const g = s(
      'g',
      {
        class: 'node status-none',
        'data-step': node.id,
        'data-status': 'none',
        'data-kind': node.type || 'unknown',
        'data-plugin': node.plugin || undefined,
        transform: `translate(${at.x - width / 2} ${at.y - height / 2})`,
        tabindex: -1,
        role: 'button',
        'aria-label': labelOf(node.id),
      },
      s('title', {}, `${node.id}${node.name ? ` (${node.name})` : ''}\n${subtitle}`),
      s('rect', { class: 'box', width, height, rx: 8 }),
      icon(node.type, node.plugin, 9, height / 2 - 10),
      s('text', { class: 'node-title', x: TEXT_X, y: height / 2 - 4 }, labels.title(node)),
      s('text', { class: 'node-sub', x: TEXT_X, y: height / 2 + 12 }, labels.subtitle(node)),
    );
    nodeElements.set(node.id, g);
    nodeLayer.append(g);
  }
  return { svg, viewport, ring, nodeElements };
}

/** A route through the points, as curves leaving and entering each point horizontally. */
function curve(points: Array<{ x: number; y: number }>): string {
  const f = (v: number) => v.toFixed(1);
  let d = `M ${f(points[0].x)} ${f(points[0].y)}`;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const dx = (b.x - a.x) / 2;
    d += dx > 0 ? ` C ${f(a.x + dx)} ${f(a.y)} ${f(b.x - dx)} ${f(b.y)} ${f(b.x)} ${f(b.y)}` : ` L ${f(b.x)} ${f(b.y)}`;
  }
  return d;
}

/** Measures with a canvas in the page's font family; a rough width per character where there is no canvas. */
export function canvasMeasure(): Measure {
  const context = document.createElement('canvas').getContext('2d');
  const family = getComputedStyle(document.body).fontFamily || 'sans-serif';
  return (text, font) => {
    if (!context) return text.length * 8;
    context.font = `${font} ${family}`;
    return context.measureText(text).width;
  };
}
