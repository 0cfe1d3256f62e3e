/**
 * Draws a laid-out step graph as SVG with zoom (wheel, buttons), pan (drag) and
 * fit (never below a scale where the labels are readable: a larger graph is
 * panned instead). Boxes are as wide as their names need (labels.ts). Nodes
 * carry `data-step`, `data-kind`, `data-plugin`, an icon and a `status-…`
 * class, so an execution colours them as its events arrive. A small workflow
 * is drawn compact (smaller boxes, a canvas its own height).
 *
 * Keyboard: the graph is one tab stop (the selected or first step); arrow keys
 * move along the edges (→ a step it feeds, ← a step feeding it) and ↑/↓ within a
 * column; Enter or Space selects the focused step, as a click does.
 *
 * The time to lay out and draw is kept on the element (`data-layout-ms`,
 * `data-draw-ms`) for the browser tests to report.
 */
import { h, s } from '../dom';
import { icon, iconName, iconSymbols } from './icons';
import { nodeLabels, TEXT_X, type Measure } from './labels';
import { COMPACT, layoutGraph, REGULAR } from './layout';
import type { StepGraph } from './model';
import { navigator } from './navigation';

export interface GraphView {
  element: HTMLElement;
  setStatus(stepId: string, status: string): void;
  select(stepId: string | undefined): void;
  fit(): void;
  /** Moves keyboard focus to a step (scrolling it into view). */
  focus(stepId: string): void;
}

export interface GraphOptions {
  onSelect?: (stepId: string) => void;
  /** Smaller boxes and a canvas of the graph's own height; default: for graphs of up to COMPACT_MAX_STEPS steps. */
  compact?: boolean;
}

const MIN_SCALE = 0.05;
const MAX_SCALE = 3;
/**
 * Below this scale node titles (13 px) are drawn under 11 px, too small to read: the first view and Fit
 * stop at it, and a larger graph is panned (drag) rather than shrunk further; only zooming out goes below.
 */
const READABLE_SCALE = 0.85;
export const COMPACT_MAX_STEPS = 12;
/** Canvas heights of a compact graph (CSS classes `h-…`; the regular canvas is 520 px). */
const COMPACT_HEIGHTS = [160, 240, 320, 400];

export function graphView(graph: StepGraph, options: GraphOptions = {}): GraphView {
  const started = performance.now();
  const compactWanted = options.compact ?? graph.nodes.length <= COMPACT_MAX_STEPS;
  // Boxes as wide as the longest label needs, so names are drawn whole (labels.ts).
  const measure = canvasMeasure();
  const compactLabels = compactWanted ? nodeLabels(graph.nodes, COMPACT, measure) : undefined;
  const compactPlaced = compactLabels ? layoutGraph(graph, compactLabels.spacing) : undefined;
  const canvas = compactPlaced ? COMPACT_HEIGHTS.find((height) => compactPlaced.height + 16 <= height) : undefined;
  const compact = canvas !== undefined;
  const labels = compact && compactLabels ? compactLabels : nodeLabels(graph.nodes, REGULAR, measure);
  const placed = compact && compactPlaced ? compactPlaced : layoutGraph(graph, labels.spacing);
  const laidOut = performance.now();
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
  const statuses = new Map<string, string>();
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const labelOf = (id: string) => {
    const node = byId.get(id);
    const kind = [node?.type, node?.plugin].filter(Boolean).join(' ');
    return `Step ${id}${node?.name ? ` (${node.name})` : ''}${kind ? `, ${kind}` : ''}, status ${statuses.get(id) ?? 'none'}`;
  };
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

  // Keyboard: one tab stop (roving tabindex), arrows along edges and within columns.
  const keys = navigator(graph, placed);
  let tabStop = keys.first;
  if (tabStop) nodeElements.get(tabStop)?.setAttribute('tabindex', '0');
  const focusStep = (stepId: string) => {
    const node = nodeElements.get(stepId);
    if (!node) return;
    if (tabStop && tabStop !== stepId) nodeElements.get(tabStop)?.setAttribute('tabindex', '-1');
    tabStop = stepId;
    node.setAttribute('tabindex', '0');
    ensureVisible(stepId);
    node.focus({ preventScroll: true });
  };
  svg.addEventListener('focusin', (event) => {
    const node = (event.target as Element).closest?.('.node');
    if (!node) return;
    ring.setAttribute('transform', node.getAttribute('transform') ?? '');
    ring.setAttribute('visibility', 'visible');
  });
  svg.addEventListener('focusout', () => ring.setAttribute('visibility', 'hidden'));
  svg.addEventListener('keydown', (event) => {
    const node = (event.target as Element).closest?.('.node');
    const stepId = node?.getAttribute('data-step');
    if (!stepId) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      options.onSelect?.(stepId);
      return;
    }
    const next = keys.next(stepId, event.key);
    if (event.key.startsWith('Arrow') || event.key === 'Home') event.preventDefault();
    if (next) focusStep(next);
  });
  svg.addEventListener('click', (event) => {
    const stepId = (event.target as Element).closest?.('.node')?.getAttribute('data-step');
    if (!stepId) return;
    focusStep(stepId);
    options.onSelect?.(stepId);
  });

  // Zoom and pan: one transform on the viewport group.
  const maxFit = compact ? 1 : 1.2;
  let view = { x: 0, y: 0, scale: 1 };
  const apply = () => viewport.setAttribute('transform', `translate(${view.x} ${view.y}) scale(${view.scale})`);
  const zoomAt = (factor: number, cx: number, cy: number) => {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
    view = { x: cx - ((cx - view.x) * scale) / view.scale, y: cy - ((cy - view.y) * scale) / view.scale, scale };
    apply();
  };
  /** The whole graph when it fits readably, else readable size from its left edge (the triggers), centred vertically. */
  const fit = () => {
    const box = svg.getBoundingClientRect();
    if (box.width === 0 || placed.width === 0) return;
    const scale = Math.min(MAX_SCALE, box.width / placed.width, box.height / placed.height, maxFit);
    if (scale >= READABLE_SCALE) {
      view = { x: (box.width - placed.width * scale) / 2, y: (box.height - placed.height * scale) / 2, scale };
      return apply();
    }
    // Too big to fit readably: readable size, from the left edge (the triggers); the whole height when it fits.
    const first = [...placed.nodes.values()].reduce((a, b) => (b.x < a.x ? b : a));
    const tall = placed.height * READABLE_SCALE > box.height;
    const y = tall ? box.height / 2 - first.y * READABLE_SCALE : (box.height - placed.height * READABLE_SCALE) / 2;
    view = { x: 20 - (first.x - width / 2) * READABLE_SCALE, y, scale: READABLE_SCALE };
    apply();
  };
  /** Pans (at the current scale) so the step is inside the canvas. */
  const ensureVisible = (stepId: string) => {
    const at = placed.nodes.get(stepId);
    const box = svg.getBoundingClientRect();
    if (!at || box.width === 0) return;
    const x = view.x + at.x * view.scale;
    const y = view.y + at.y * view.scale;
    const marginX = (width / 2) * view.scale + 12;
    const marginY = (height / 2) * view.scale + 12;
    if (x >= marginX && x <= box.width - marginX && y >= marginY && y <= box.height - marginY) return;
    view = { ...view, x: box.width / 2 - at.x * view.scale, y: box.height / 2 - at.y * view.scale };
    apply();
  };
  svg.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const box = svg.getBoundingClientRect();
      zoomAt(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - box.left, event.clientY - box.top);
    },
    { passive: false },
  );
  let drag: { x: number; y: number } | undefined;
  svg.addEventListener('pointerdown', (event) => {
    if ((event.target as Element).closest('.node')) return;
    drag = { x: event.clientX - view.x, y: event.clientY - view.y };
    svg.setPointerCapture(event.pointerId);
    svg.classList.add('dragging');
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag) return;
    view = { ...view, x: event.clientX - drag.x, y: event.clientY - drag.y };
    apply();
  });
  const endDrag = () => {
    drag = undefined;
    svg.classList.remove('dragging');
  };
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', endDrag);

  const centre = (): [number, number] => {
    const box = svg.getBoundingClientRect();
    return [box.width / 2, box.height / 2];
  };
  const element = h(
    'div',
    {
      class: compact ? `graph compact h-${canvas}` : 'graph',
      'data-nodes': graph.nodes.length,
      'data-layout-ms': (laidOut - started).toFixed(1),
    },
    h(
      'div',
      { class: 'graph-tools' },
      h('button', { type: 'button', title: 'Zoom in', 'aria-label': 'Zoom in', onclick: () => zoomAt(1.25, ...centre()) }, '+'),
      h('button', { type: 'button', title: 'Zoom out', 'aria-label': 'Zoom out', onclick: () => zoomAt(0.8, ...centre()) }, '−'),
      h(
        'button',
        {
          type: 'button',
          title: 'Fit the graph, as far as its labels stay readable (drag to pan, zoom out for an overview)',
          onclick: fit,
        },
        'Fit',
      ),
    ),
    graph.nodes.length === 0 ? h('p', { class: 'empty' }, 'This revision has no steps.') : svg,
  );
  // Fit once the element is in the page and has a size; record the time to first draw.
  requestAnimationFrame(() => {
    fit();
    element.setAttribute('data-draw-ms', (performance.now() - started).toFixed(1));
  });

  let selected: string | undefined;
  return {
    element,
    fit,
    focus: focusStep,
    setStatus(stepId, status) {
      const node = nodeElements.get(stepId);
      if (!node) return;
      statuses.set(stepId, status);
      node.setAttribute('class', `node status-${status}${selected === stepId ? ' selected' : ''}`);
      node.setAttribute('data-status', status);
      node.setAttribute('aria-label', labelOf(stepId));
    },
    select(stepId) {
      if (selected) {
        nodeElements.get(selected)?.classList.remove('selected');
        nodeElements.get(selected)?.removeAttribute('aria-pressed');
      }
      selected = stepId;
      if (!stepId) return;
      nodeElements.get(stepId)?.classList.add('selected');
      nodeElements.get(stepId)?.setAttribute('aria-pressed', 'true');
      if (tabStop !== stepId && nodeElements.has(stepId)) {
        if (tabStop) nodeElements.get(tabStop)?.setAttribute('tabindex', '-1');
        tabStop = stepId;
        nodeElements.get(stepId)!.setAttribute('tabindex', '0');
      }
    },
  };
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
function canvasMeasure(): Measure {
  const context = document.createElement('canvas').getContext('2d');
  const family = getComputedStyle(document.body).fontFamily || 'sans-serif';
  return (text, font) => {
    if (!context) return text.length * 8;
    context.font = `${font} ${family}`;
    return context.measureText(text).width;
  };
}
