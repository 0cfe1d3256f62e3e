/**
 * Templates inside a script (code-exec `code`, a config property of format
 * `script`): each `${{ expr }}` is evaluated to a value that the script reads
 * through a bound function, never pasted into its source. The compatible
 * engine pastes the template's text into the JavaScript, so a webhook body
 * `'+key.split('').join('~')+'` reaching `const who = '${{ … }}'` ran as code.
 *
 * The script QuickJS compiles here is a pure function of the definition's
 * code ({@link planScript}): each template is replaced by a placeholder name
 * that appears nowhere in the code, the result is parsed with acorn, and each
 * placeholder is placed by the node that holds it:
 * - a whole identifier where a value is read (`const n = ${{ x }};`):
 *   `(VALUE(i))`, the template's text read as JSON (what pasting a JSON
 *   text would have meant; any other text fails the step, as it would be code);
 * - inside a string literal (`'Hi ${{ x }}!'`): the literal becomes
 *   `('Hi ' + TEXT(i) + '!')` (a computed key where it names a property);
 * - inside an untagged template literal: a substitution `${TEXT(i)}`;
 * - inside a comment: nothing (a comment has no meaning).
 * Anything else (a regular expression, part of a name, a tagged template, a
 * backslash that would escape the value, a script that is one template, code
 * that does not parse) is refused with the place and the idiom to use instead.
 * The rewritten script is parsed again: a placeholder that stood where a name
 * is declared or assigned does not parse as a value and is refused too.
 *
 * The values themselves (their text: `stringify`, as embedding would give)
 * reach the sandbox as data, bound to VALUE/TEXT by the activity.
 */
import type { Comment } from 'acorn';
import { parseJs } from './js-parser';
import { templateSpans } from './expressions';
import {
  codeOffset,
  escapeBefore,
  leafHolders,
  lineOf,
  nearestEdit,
  parseProblem,
  type AnyNode,
  type Edit,
  type Holder,
} from './script-template-ast';

/** How the script reads one template's value. */
export type ScriptSlot = 'value' | 'text' | 'comment';

export interface ScriptPlan {
  /** The code the sandbox compiles: the definition's code with each template replaced by a call. */
  source: string;
  /** Per template, in order of occurrence. */
  slots: ScriptSlot[];
  /** The template sources, in order (for messages). */
  templates: string[];
  /** The functions the source calls: VALUE(i) returns template i's text parsed as JSON, TEXT(i) its text. */
  valueFunction: string;
  textFunction: string;
}

export type ScriptPlanning = { plan: ScriptPlan; error?: undefined } | { error: string; plan?: undefined };

/** What the message tells the author to write instead. */
export const SCRIPT_TEMPLATE_IDIOM =
  "declare the value in the step's inputs (inputs: { who: '${{ workflow.inputs.who }}' }) and read it as inputs.who in the code";

const PREFIX = '(async () => {\n';
const SUFFIX = '\n})()';
const PARSE_OPTIONS = { ecmaVersion: 'latest', sourceType: 'script' } as const;

/** The plan of a code without templates: itself. */
function asWritten(code: string): ScriptPlanning {
  return { plan: { source: code, slots: [], templates: [], valueFunction: '', textFunction: '' } };
}

/**
 * Plans by code. Planning is pure, so caching is safe; it saves the activity a parse per call of the
 * same step. Bounded by the characters held (codes and their plans), not only by count: scripts can be large.
 */
const cache = new Map<string, { planning: ScriptPlanning; size: number }>();
const CACHE_MAX_CHARS = 8_000_000;
let cachedChars = 0;

/** How a script's templates are read. A code without templates is its own plan. */
export function planScript(code: string): ScriptPlanning {
  if (!code.includes('${{')) return asWritten(code);
  const cached = cache.get(code);
  if (cached) return cached.planning;
  const planning = computePlan(code);
  const size = code.length * 2;
  if (size <= CACHE_MAX_CHARS) {
    while (cachedChars + size > CACHE_MAX_CHARS) {
      const [oldest, entry] = cache.entries().next().value as [string, { size: number }];
      cache.delete(oldest);
      cachedChars -= entry.size;
    }
    cache.set(code, { planning, size });
    cachedChars += size;
  }
  return planning;
}

function computePlan(code: string): ScriptPlanning {
  const { spans: occurrences, error } = templateSpans(code);
  if (error) return { error };
  if (occurrences.length === 0) return asWritten(code);
  const first = occurrences[0];
  if (occurrences.length === 1 && code.slice(0, first.start).trim() === '' && code.slice(first.end).trim() === '')
    return {
      error: `the code is one template ("${shown(first.source)}"): its value would run as code; write the script in "code" and ${SCRIPT_TEMPLATE_IDIOM}`,
    };

  // Identifier characters that occur nowhere in the code: no placeholder or bound name can clash with the script's own.
  let base = '__tpl';
  while (code.includes(base)) base += '_';
  const placeholders: Array<{ start: number; end: number }> = [];
  let substituted = PREFIX;
  let from = 0;
  occurrences.forEach((occurrence, index) => {
    substituted += code.slice(from, occurrence.start);
    const name = `${base}${index}$`;
    placeholders.push({ start: substituted.length, end: substituted.length + name.length });
    substituted += name;
    from = occurrence.end;
  });
  substituted += code.slice(from) + SUFFIX;
  const toCode = (position: number) => codeOffset(position, PREFIX.length, placeholders, occurrences);
  const where = (index: number) => `the template "${shown(occurrences[index].source)}" (line ${lineOf(code, occurrences[index].start)})`;

  const comments: Comment[] = [];
  let program: AnyNode;
  try {
    program = parseJs(substituted, { ...PARSE_OPTIONS, onComment: comments }) as unknown as AnyNode;
  } catch (error) {
    return { error: parseProblem(code, error, toCode) };
  }
  const holders = leafHolders(program);
  const valueFunction = `${base}v`;
  const textFunction = `${base}t`;
  const slots: ScriptSlot[] = [];
  const edits: Edit[] = [];
  const literals = new Map<AnyNode, { holder: Holder; indexes: number[] }>();

  for (const [index, placeholder] of placeholders.entries()) {
    const comment = comments.find((entry) => entry.start <= placeholder.start && placeholder.end <= entry.end);
    if (comment) {
      slots.push('comment');
      continue;
    }
    const holder = holders.find(({ node }) => node.start <= placeholder.start && placeholder.end <= node.end);
    const refuse = (why: string): ScriptPlanning => ({
      error: `${where(index)} ${why}: template values never become code; ${SCRIPT_TEMPLATE_IDIOM}`,
    });
    const node = holder?.node;
    if (!holder || !node) return refuse('is not a value, a string or a comment');
    if (node.type === 'Identifier') {
      if (node.start !== placeholder.start || node.end !== placeholder.end) return refuse('is part of a name');
      slots.push('value');
      edits.push({ start: placeholder.start, end: placeholder.end, text: `(${valueFunction}(${index}))` });
      continue;
    }
    if (node.type === 'Literal' && node.regex !== undefined) return refuse('is inside a regular expression literal');
    if (node.type === 'Literal' && typeof node.value === 'string') {
      // A directive ('use strict') made an expression would end the prologue: the directives after it would no longer apply.
      if (typeof holder.parent?.directive === 'string') return refuse('is inside a directive');
      const escape = escapeBefore(substituted, node.start + 1, placeholder.start);
      if (escape) return refuse(escape);
      slots.push('text');
      const entry = literals.get(node) ?? { holder, indexes: [] };
      entry.indexes.push(index);
      literals.set(node, entry);
      continue;
    }
    if (node.type === 'TemplateElement') {
      if (holder.grandparent?.type === 'TaggedTemplateExpression') return refuse('is inside a tagged template literal');
      const escape = escapeBefore(substituted, node.start, placeholder.start);
      if (escape) return refuse(escape);
      slots.push('text');
      edits.push({ start: placeholder.start, end: placeholder.end, text: `\${${textFunction}(${index})}` });
      continue;
    }
    return refuse('is not a value, a string or a comment');
  }

  // A string literal holding templates becomes a concatenation of its own (re-quoted) pieces and the values' text.
  for (const [literal, { holder, indexes }] of literals) {
    const quote = substituted[literal.start];
    const pieces: string[] = [];
    let at = literal.start + 1;
    for (const index of indexes) {
      const placeholder = placeholders[index];
      pieces.push(quote + substituted.slice(at, placeholder.start) + quote, `${textFunction}(${index})`);
      at = placeholder.end;
    }
    pieces.push(quote + substituted.slice(at, literal.end - 1) + quote);
    const expression = `(${pieces.filter((piece) => piece !== quote + quote).join(' + ')})`;
    // `{ 'a${{ x }}': 1 }` names a property: the concatenation becomes a computed key.
    const namesAProperty = holder.key === 'key' && holder.parent?.computed !== true;
    edits.push({ start: literal.start, end: literal.end, text: namesAProperty ? `[${expression}]` : expression });
  }

  let rewritten = substituted;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    rewritten = rewritten.slice(0, edit.start) + edit.text + rewritten.slice(edit.end);
  try {
    parseJs(rewritten, PARSE_OPTIONS);
  } catch (error) {
    // The placeholder parsed as a name; as a value it does not: it declared, assigned or named something.
    const position = (error as { pos?: number }).pos ?? 0;
    const index = nearestEdit(edits, position, placeholders);
    return {
      error: `${where(index)} stands where the script declares, assigns or names something, not where it reads a value: template values never become code; ${SCRIPT_TEMPLATE_IDIOM}`,
    };
  }
  return {
    plan: {
      source: rewritten.slice(PREFIX.length, rewritten.length - SUFFIX.length),
      slots,
      templates: occurrences.map((occurrence) => occurrence.source),
      valueFunction,
      textFunction,
    },
  };
}

function shown(source: string): string {
  return `\${{${source}}}`;
}
