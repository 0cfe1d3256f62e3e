/**
 * A step graph's view: laid out (layout.ts), drawn as SVG (drawing.ts) with zoom
 * (wheel, buttons), pan (drag) and fit (zoom.ts: never below a scale where the
 * labels are readable, a larger graph is panned instead). Boxes are as wide as
 * their names need (labels.ts). Nodes
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
import { h } from '../dom';
import { nodeLabels } from './labels';
import { COMPACT, layoutGraph, REGULAR } from './layout';
import type { StepGraph } from './model';
import { navigator } from './navigation';
import { canvasMeasure, drawGraph } from './drawing';
import { zoomAndPan } from './zoom';

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

  const statuses = new Map<string, string>();
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const labelOf = (id: string) => {
    const node = byId.get(id);
    const kind = [node?.type, node?.plugin].filter(Boolean).join(' ');
    return `Step ${id}${node?.name ? ` (${node.name})` : ''}${kind ? `, ${kind}` : ''}, status ${statuses.get(id) ?? 'none'}`;
  };
  const { svg, viewport, ring, nodeElements } = drawGraph(graph, placed, labels, labelOf);

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
    zoom.ensureVisible(stepId);
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

  const zoom = zoomAndPan(svg, viewport, placed, compact);
  const { fit, zoomAt, centre } = zoom;
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
