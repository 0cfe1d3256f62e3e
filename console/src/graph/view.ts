/**
 * Draws a laid-out step graph as SVG with zoom (wheel, buttons), pan (drag) and
 * fit. Nodes carry `data-step` and a `status-…` class, so an execution colours
 * them as its events arrive. The time to lay out and draw is kept on the
 * element (`data-layout-ms`, `data-draw-ms`) for the browser tests to report.
 */
import { h, s } from '../dom';
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH } from './layout';
import type { StepGraph } from './model';

export interface GraphView {
  element: HTMLElement;
  setStatus(stepId: string, status: string): void;
  select(stepId: string | undefined): void;
  fit(): void;
}

const MIN_SCALE = 0.05;
const MAX_SCALE = 3;
/** Below this scale node labels are too small to read: the first view of a large graph stays at it. */
const READABLE_SCALE = 0.6;

export function graphView(graph: StepGraph, options: { onSelect?: (stepId: string) => void } = {}): GraphView {
  const started = performance.now();
  const placed = layoutGraph(graph);
  const laidOut = performance.now();

  const viewport = s('g', { class: 'viewport' });
  const svg = s(
    'svg',
    { class: 'graph-svg', role: 'img', 'aria-label': `Workflow graph with ${graph.nodes.length} steps` },
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' },
        s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }),
      ),
    ),
    viewport,
  );
  for (const edge of placed.edges) {
    if (edge.points.length === 0) continue;
    const d = edge.points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
    viewport.append(s('path', { class: 'edge', d, 'marker-end': 'url(#arrow)', 'data-from': edge.from, 'data-to': edge.to }));
    if (edge.labelAt)
      viewport.append(s('text', { class: 'edge-label', x: edge.labelAt.x, y: edge.labelAt.y, 'text-anchor': 'middle' }, edge.label));
  }
  const nodeElements = new Map<string, SVGGElement>();
  for (const node of graph.nodes) {
    const at = placed.nodes.get(node.id);
    if (!at) continue;
    const title = node.name || node.id;
    const subtitle = [node.type, node.plugin].filter(Boolean).join(' · ');
    const g = s(
      'g',
      {
        class: 'node status-none',
        'data-step': node.id,
        'data-status': 'none',
        transform: `translate(${at.x - NODE_WIDTH / 2} ${at.y - NODE_HEIGHT / 2})`,
        tabindex: 0,
        role: 'button',
      },
      s('title', {}, `${node.id}${node.name ? ` (${node.name})` : ''}\n${subtitle}`),
      s('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 8 }),
      s('text', { class: 'node-title', x: 10, y: 21 }, clip(title, 22)),
      s('text', { class: 'node-sub', x: 10, y: 39 }, clip(subtitle, 28)),
    );
    if (options.onSelect) {
      const select = () => options.onSelect!(node.id);
      g.addEventListener('click', select);
      g.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') select();
      });
    }
    nodeElements.set(node.id, g);
    viewport.append(g);
  }

  // Zoom and pan: one transform on the viewport group.
  let view = { x: 0, y: 0, scale: 1 };
  const apply = () => viewport.setAttribute('transform', `translate(${view.x} ${view.y}) scale(${view.scale})`);
  const zoomAt = (factor: number, cx: number, cy: number) => {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
    view = { x: cx - ((cx - view.x) * scale) / view.scale, y: cy - ((cy - view.y) * scale) / view.scale, scale };
    apply();
  };
  const fit = () => {
    const box = svg.getBoundingClientRect();
    if (box.width === 0 || placed.width === 0) return;
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, Math.min(box.width / placed.width, box.height / placed.height, 1.2)));
    view = { x: (box.width - placed.width * scale) / 2, y: (box.height - placed.height * scale) / 2, scale };
    apply();
  };
  /** First view: the whole graph when it fits readably, else readable size from its left edge (the triggers), centred vertically. */
  const initialView = () => {
    const box = svg.getBoundingClientRect();
    if (box.width === 0 || placed.width === 0) return;
    const fitScale = Math.min(box.width / placed.width, box.height / placed.height, 1.2);
    if (fitScale >= READABLE_SCALE) return fit();
    const first = [...placed.nodes.values()].reduce((a, b) => (b.x < a.x ? b : a));
    view = { x: 20 - (first.x - NODE_WIDTH / 2) * READABLE_SCALE, y: box.height / 2 - first.y * READABLE_SCALE, scale: READABLE_SCALE };
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
    { class: 'graph', 'data-nodes': graph.nodes.length, 'data-layout-ms': (laidOut - started).toFixed(1) },
    h(
      'div',
      { class: 'graph-tools' },
      h('button', { type: 'button', title: 'Zoom in', 'aria-label': 'Zoom in', onclick: () => zoomAt(1.25, ...centre()) }, '+'),
      h('button', { type: 'button', title: 'Zoom out', 'aria-label': 'Zoom out', onclick: () => zoomAt(0.8, ...centre()) }, '−'),
      h('button', { type: 'button', title: 'Fit the whole graph (zoom in to read, drag to pan)', onclick: fit }, 'Fit'),
    ),
    graph.nodes.length === 0 ? h('p', { class: 'empty' }, 'This revision has no steps.') : svg,
  );
  // Fit once the element is in the page and has a size; record the time to first draw.
  requestAnimationFrame(() => {
    initialView();
    element.setAttribute('data-draw-ms', (performance.now() - started).toFixed(1));
  });

  let selected: string | undefined;
  return {
    element,
    fit,
    setStatus(stepId, status) {
      const node = nodeElements.get(stepId);
      if (!node) return;
      node.setAttribute('class', `node status-${status}${selected === stepId ? ' selected' : ''}`);
      node.setAttribute('data-status', status);
    },
    select(stepId) {
      if (selected) nodeElements.get(selected)?.classList.remove('selected');
      selected = stepId;
      if (stepId) nodeElements.get(stepId)?.classList.add('selected');
    },
  };
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
