/**
 * The syntax side of script templates (script-templates.ts): the parsed script's leaf nodes a
 * placeholder can sit in, escapes that would change a placed value's meaning, and the way back
 * from a position of the rewritten text to the line of the definition's code an error names.
 */
import type { TemplateSpan } from './expressions';

/** A replacement of `start`..`end` of the rewritten text by `text`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

export type AnyNode = { type: string; start: number; end: number } & Record<string, unknown>;

export interface Holder {
  node: AnyNode;
  parent?: AnyNode;
  key?: string;
  /** The template literal's parent, for a quasi. */
  grandparent?: AnyNode;
}

/**
 * Why a value placed at `at` inside a literal whose body starts at `bodyStart` would not read as written:
 * an odd run of backslashes before it would escape its first character (or, in a string, an octal escape
 * `\0`–`\77` would take its first digit).
 */
export function escapeBefore(text: string, bodyStart: number, at: number): string | undefined {
  let run = 0;
  while (at - run - 1 >= bodyStart && text[at - run - 1] === '\\') run += 1;
  if (run % 2 === 1) return 'follows a backslash that would escape its value';
  const octal = /(\\+)[0-7]{1,2}$/.exec(text.slice(bodyStart, at));
  if (octal && octal[1].length % 2 === 1) return 'follows an octal escape that would take its first digit';
  return undefined;
}

/** The leaf nodes a placeholder can sit in (names, literals, template quasis, private names), with their parents. */
export function leafHolders(program: AnyNode): Holder[] {
  const holders: Holder[] = [];
  const stack: Holder[] = [{ node: program }];
  while (stack.length > 0) {
    const holder = stack.pop()!;
    const { node } = holder;
    if (['Identifier', 'Literal', 'TemplateElement', 'PrivateIdentifier'].includes(node.type)) {
      holders.push(holder);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (Array.isArray(child)) {
        for (const entry of child) if (isNode(entry)) stack.push({ node: entry, parent: node, key, grandparent: holder.parent });
      } else if (isNode(child)) stack.push({ node: child, parent: node, key, grandparent: holder.parent });
    }
  }
  return holders;
}

function isNode(value: unknown): value is AnyNode {
  return value !== null && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string';
}

/** An offset of the parsed text (the code wrapped in a prefix of `prefixLength`) as an offset of the definition's code. */
export function codeOffset(
  position: number,
  prefixLength: number,
  placeholders: Array<{ start: number; end: number }>,
  occurrences: TemplateSpan[],
): number {
  let shift = prefixLength;
  for (const [index, placeholder] of placeholders.entries()) {
    if (position < placeholder.start) break;
    if (position < placeholder.end) return occurrences[index].start;
    shift += placeholder.end - placeholder.start - (occurrences[index].end - occurrences[index].start);
  }
  return Math.max(0, position - shift);
}

/** The template whose edit is at, or last before, a position of the rewritten text (a name's value edit first). */
export function nearestEdit(edits: Edit[], position: number, placeholders: Array<{ start: number; end: number }>): number {
  let shift = 0;
  let best = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    if (edit.start + shift > position) break;
    const index = placeholders.findIndex((placeholder) => edit.start <= placeholder.start && placeholder.end <= edit.end);
    if (index >= 0) best = index;
    shift += edit.text.length - (edit.end - edit.start);
  }
  return best;
}

export function parseProblem(code: string, error: unknown, toCode: (position: number) => number): string {
  const position = (error as { pos?: number }).pos;
  const message = error instanceof Error ? error.message.replace(/\s*\(\d+:\d+\)$/, '') : String(error);
  const at = position === undefined ? '' : ` (line ${lineOf(code, toCode(position))})`;
  return `does not parse as JavaScript once its templates stand for values${at}: ${message}; templates may stand only for a value, inside a string or in a comment`;
}

export function lineOf(code: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < code.length; index += 1) if (code[index] === '\n') line += 1;
  return line;
}
