/**
 * A graph's node labels, measured as the browser draws them: the boxes are as
 * wide as the longest name needs (up to MAX_NODE_WIDTH), so a name such as
 * `wait_for_approval` is shown whole rather than cut at a character count. A
 * name past the cap is cut to the box with an ellipsis; the node's hover title
 * and the step panel show it in full. Pure: the page passes its measure
 * (graph/view.ts), so tests run it under Node.
 */
import type { Spacing } from './layout';
import type { GraphNode } from './model';

/** Where the text starts (right of the icon), and the room kept on its right. */
export const TEXT_X = 36;
const RIGHT_PAD = 10;
/** Wider boxes would crowd a graph; a longer name is cut. */
export const MAX_NODE_WIDTH = 320;
/** The fonts of `.graph .node-title` and `.node-sub` in styles.css. */
const TITLE_FONT = '600 13px';
const SUB_FONT = '11px';

/** The drawn width of `text` in `font` (a CSS font shorthand without the family), in px. */
export type Measure = (text: string, font: string) => number;

export interface NodeLabels {
  /** The spacing with the node width the labels need. */
  spacing: Spacing;
  title(node: GraphNode): string;
  subtitle(node: GraphNode): string;
}

export function nodeLabels(nodes: GraphNode[], spacing: Spacing, measure: Measure): NodeLabels {
  const titleOf = (node: GraphNode) => node.name || node.id;
  const subtitleOf = (node: GraphNode) => [node.type, node.plugin].filter(Boolean).join(' · ');
  let needed = 0;
  for (const node of nodes) needed = Math.max(needed, measure(titleOf(node), TITLE_FONT), measure(subtitleOf(node), SUB_FONT));
  const nodeWidth = Math.min(MAX_NODE_WIDTH, Math.max(spacing.nodeWidth, Math.ceil(TEXT_X + needed + RIGHT_PAD)));
  const room = nodeWidth - TEXT_X - RIGHT_PAD;
  const cut = (text: string, font: string): string => {
    if (measure(text, font) <= room) return text;
    // The longest prefix that fits with its ellipsis (binary search: names are bounded, this stays cheap).
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (measure(`${text.slice(0, mid)}…`, font) <= room) lo = mid;
      else hi = mid - 1;
    }
    return `${text.slice(0, lo)}…`;
  };
  return {
    spacing: { ...spacing, nodeWidth },
    title: (node) => cut(titleOf(node), TITLE_FONT),
    subtitle: (node) => cut(subtitleOf(node), SUB_FONT),
  };
}
