/**
 * Zoom (wheel, buttons), pan (drag) and fit of a drawn graph (./view.ts): one transform on the viewport group.
 * Fit never goes below a scale where the labels are readable: a larger graph is panned instead.
 */
import type { Placed } from './layout';

const MIN_SCALE = 0.05;
const MAX_SCALE = 3;
/**
 * Below this scale node titles (13 px) are drawn under 11 px, too small to read: the first view and Fit
 * stop at it, and a larger graph is panned (drag) rather than shrunk further; only zooming out goes below.
 */
const READABLE_SCALE = 0.85;

export interface Zoom {
  /** The whole graph when it fits readably, else readable size from its left edge (the triggers). */
  fit: () => void;
  /** Scales by `factor` around the canvas point (cx, cy). */
  zoomAt: (factor: number, cx: number, cy: number) => void;
  /** Pans (at the current scale) so the step is inside the canvas. */
  ensureVisible: (stepId: string) => void;
  /** The canvas's centre. */
  centre: () => [number, number];
}

/** `compact`: a small graph's canvas, fitted at most at its natural size. */
export function zoomAndPan(svg: SVGSVGElement, viewport: SVGGElement, placed: Placed, compact: boolean): Zoom {
  const { nodeWidth: width, nodeHeight: height } = placed.spacing;
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
  return { fit, zoomAt, ensureVisible, centre };
}
