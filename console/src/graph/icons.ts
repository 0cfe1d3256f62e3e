/**
 * Small inline SVG icons for graph nodes, one per step kind and per common
 * plugin, drawn in a 20×20 box from plain shapes (no font, no markup strings).
 * `iconName` picks the icon; each icon a graph uses is drawn once as a
 * `<symbol>` (`iconSymbols`) and each node shows it with one `<use>` carrying
 * `data-icon` (`icon`): a 1,000-step graph draws 1,000 elements for its icons,
 * not 4,000. Shapes stroke or fill with `currentColor`: the node's kind sets it.
 */
import { s } from '../dom';

type Shape = SVGElement;

/** Icons of plugins (by pluginType), then of kinds (by step type). */
const BY_PLUGIN: Record<string, string> = {
  manual: 'play',
  cron: 'clock',
  webhook: 'link',
  'on-error': 'alert',
  'execution-failed-trigger': 'alert',
  conditional: 'branch',
  case: 'branch',
  'http-request': 'globe',
  'paginated-fetch': 'globe',
  log: 'lines',
  'code-exec': 'code',
  'signal-wait': 'bell',
  'webhook-wait': 'link',
  delay: 'hourglass',
  'sub-workflow': 'nested',
  'set-variable': 'equals',
  'split-in-batches': 'stack',
  'no-op': 'ring',
  fail: 'cross',
};
const BY_KIND: Record<string, string> = {
  trigger: 'bolt',
  decider: 'branch',
  wait: 'hourglass',
  module: 'cube',
  passthrough: 'ring',
  subworkflow: 'nested',
  observer: 'eye',
};

export function iconName(kind: string, plugin: string): string {
  return (Object.hasOwn(BY_PLUGIN, plugin) ? BY_PLUGIN[plugin] : undefined) ?? (Object.hasOwn(BY_KIND, kind) ? BY_KIND[kind] : 'cube');
}

const line = (x1: number, y1: number, x2: number, y2: number): Shape => s('line', { x1, y1, x2, y2 });
const path = (d: string, filled = false): Shape => s('path', { d, fill: filled ? 'currentColor' : undefined });

const DRAW: Record<string, () => Shape[]> = {
  play: () => [s('circle', { cx: 10, cy: 10, r: 8 }), path('M 8 6 L 14 10 L 8 14 Z', true)],
  clock: () => [s('circle', { cx: 10, cy: 10, r: 8 }), path('M 10 5 L 10 10 L 14 12')],
  link: () => [s('rect', { x: 2, y: 7, width: 9, height: 6, rx: 3 }), s('rect', { x: 9, y: 7, width: 9, height: 6, rx: 3 })],
  alert: () => [path('M 10 2 L 18.5 17 L 1.5 17 Z'), line(10, 7, 10, 12), s('circle', { cx: 10, cy: 14.5, r: 0.8, fill: 'currentColor' })],
  bolt: () => [path('M 11 1.5 L 4 11 L 9.5 11 L 8.5 18.5 L 16 8.5 L 10.5 8.5 Z', true)],
  branch: () => [
    path('M 10 2 L 18 10 L 10 18 L 2 10 Z'),
    path('M 8 8 Q 8 6 10 6 Q 12 6 12 8 Q 12 9.5 10 10.5 L 10 12'),
    s('circle', { cx: 10, cy: 14, r: 0.8, fill: 'currentColor' }),
  ],
  globe: () => [s('circle', { cx: 10, cy: 10, r: 8 }), s('ellipse', { cx: 10, cy: 10, rx: 3.5, ry: 8 }), line(2, 10, 18, 10)],
  lines: () => [s('rect', { x: 3, y: 2, width: 14, height: 16, rx: 2 }), line(6, 7, 14, 7), line(6, 10, 14, 10), line(6, 13, 11, 13)],
  code: () => [path('M 7 5 L 2 10 L 7 15'), path('M 13 5 L 18 10 L 13 15'), line(11, 4, 9, 16)],
  bell: () => [path('M 5 14 L 5 9 Q 5 4 10 4 Q 15 4 15 9 L 15 14 Z'), line(3, 14, 17, 14), path('M 8.5 16.5 Q 10 18.5 11.5 16.5')],
  hourglass: () => [path('M 5 2 L 15 2 L 10 10 L 15 18 L 5 18 L 10 10 Z'), path('M 7.5 16.5 L 12.5 16.5 L 10 13.5 Z', true)],
  nested: () => [s('rect', { x: 2, y: 2, width: 16, height: 16, rx: 2 }), s('rect', { x: 6, y: 6, width: 8, height: 8, rx: 1 })],
  equals: () => [s('rect', { x: 2, y: 3, width: 16, height: 14, rx: 2 }), line(6, 8, 14, 8), line(6, 12, 14, 12)],
  stack: () => [
    s('rect', { x: 3, y: 3, width: 14, height: 4, rx: 1 }),
    s('rect', { x: 3, y: 8, width: 14, height: 4, rx: 1 }),
    s('rect', { x: 3, y: 13, width: 14, height: 4, rx: 1 }),
  ],
  ring: () => [s('circle', { cx: 10, cy: 10, r: 7 })],
  cross: () => [s('circle', { cx: 10, cy: 10, r: 8 }), line(6.5, 6.5, 13.5, 13.5), line(13.5, 6.5, 6.5, 13.5)],
  eye: () => [path('M 1.5 10 Q 10 2 18.5 10 Q 10 18 1.5 10 Z'), s('circle', { cx: 10, cy: 10, r: 2.5, fill: 'currentColor' })],
  cube: () => [path('M 10 2 L 17 6 L 17 14 L 10 18 L 3 14 L 3 6 Z'), path('M 3 6 L 10 10 L 17 6'), line(10, 10, 10, 18)],
};

/** One `<symbol>` per icon name (ids `icon-<name>`), for a graph's `<defs>`. */
export function iconSymbols(names: Iterable<string>): SVGSymbolElement[] {
  return [...new Set(names)]
    .filter((name) => Object.hasOwn(DRAW, name))
    .map((name) =>
      s(
        'symbol',
        {
          id: `icon-${name}`,
          viewBox: '0 0 20 20',
          fill: 'none',
          stroke: 'currentColor',
          'stroke-width': 1.6,
          'stroke-linecap': 'round',
          'stroke-linejoin': 'round',
        },
        ...DRAW[name](),
      ),
    );
}

/** The icon of a step at (x, y), its top left corner; `data-icon` names it. */
export function icon(kind: string, plugin: string, x: number, y: number): SVGUseElement {
  const name = iconName(kind, plugin);
  return s('use', {
    href: `#icon-${name}`,
    class: `icon kind-${kind || 'unknown'}`,
    'data-icon': name,
    x,
    y,
    width: 20,
    height: 20,
    'aria-hidden': 'true',
  });
}
