/**
 * Expression syntax checks and config-reference discovery. Parsing uses jsep
 * (pure JavaScript, no `new Function`), so the same parser runs in the API and
 * in the workflow sandbox. Evaluation belongs to the execution issue.
 */
import jsep from 'jsep';

export type ConfigKind = 'secret' | 'var';
export interface ConfigReference {
  kind: ConfigKind;
  name: string;
}

export interface ParsedExpression {
  ast?: jsep.Expression;
  error?: string;
}

/**
 * Parsed expressions by source. Definitions repeat the same expressions across
 * steps and re-publishes; parsing is pure, so a bounded cache is safe (also in
 * the workflow sandbox). Cached ASTs are shared: callers must not mutate them.
 */
const cache = new Map<string, ParsedExpression>();
const CACHE_LIMIT = 5000;

/** Parses a raw expression; returns the AST or an error message. */
export function parseExpression(source: string): ParsedExpression {
  const cached = cache.get(source);
  if (cached) return cached;
  let parsed: ParsedExpression;
  if (source.trim() === '') parsed = { error: 'expression is empty' };
  else {
    try {
      const ast = jsep(source);
      // Every walker over an AST (evaluation, reference discovery) recurses: a nesting bound keeps them off the stack limit.
      parsed = depthOf(ast) > MAX_EXPRESSION_DEPTH ? { error: `expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels` } : { ast };
    } catch (error) {
      parsed = { error: error instanceof Error ? error.message : 'expression does not parse' };
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(source, parsed);
  return parsed;
}

/** One `${{ … }}` of a string: its offsets (from `${{` to past `}}`) and its inner source. */
export interface TemplateSpan {
  start: number;
  end: number;
  source: string;
}

/** Every `${{ … }}` in a string, in order (the first `}}` closes one), or an error for an unclosed one. */
export function templateSpans(text: string): { spans: TemplateSpan[]; error?: string } {
  const spans: TemplateSpan[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('${{', from);
    if (open < 0) return { spans };
    const close = text.indexOf('}}', open + 3);
    if (close < 0) return { spans, error: 'has an unclosed "${{"' };
    spans.push({ start: open, end: close + 2, source: text.slice(open + 3, close) });
    from = close + 2;
  }
}

/** The inner sources of every `${{ … }}` in a string, or an error for an unclosed one. */
export function templateSources(text: string): { sources: string[]; error?: string } {
  const { spans, error } = templateSpans(text);
  const sources = spans.map((span) => span.source);
  return error ? { sources, error } : { sources };
}

/** A raw expression, or exactly one `${{ }}` around one (the engine unwraps it). */
export function unwrapRaw(source: string): string {
  const match = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(source);
  return match && !match[1].includes('}}') ? match[1] : source;
}

/** Error message for every template in a string that fails to parse. */
export function templateErrors(text: string): string[] {
  const { sources, error } = templateSources(text);
  const errors = error ? [error] : [];
  for (const source of sources) {
    const parsed = parseExpression(source);
    if (parsed.error) errors.push(`expression "${source.trim()}" does not parse: ${parsed.error}`);
  }
  return errors;
}

/** Child fields of jsep nodes; walking only these is much cheaper than visiting every property. */
const CHILDREN = ['object', 'property', 'left', 'right', 'argument', 'callee', 'test', 'consequent', 'alternate'] as const;
const LISTS = ['arguments', 'elements', 'body', 'expressions'] as const;

/** How deep an expression may nest (`1 + 1 + …` nests once per operator). */
export const MAX_EXPRESSION_DEPTH = 256;

/** The depth of an AST, measured without recursion (the tree may be arbitrarily deep). */
function depthOf(ast: jsep.Expression): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[ast, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_EXPRESSION_DEPTH) return deepest;
    const record = node as Record<string, unknown>;
    for (const field of CHILDREN) if (record[field] !== undefined) stack.push([record[field], depth + 1]);
    for (const field of LISTS) {
      const list = record[field];
      if (Array.isArray(list)) for (const child of list) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** `secrets.X` / `vars.X` (also `secrets['X']`) anywhere in an AST. */
export function collectReferences(ast: jsep.Expression, into: ConfigReference[]): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const n = node as jsep.Expression;
    if (n.type === 'Identifier' || n.type === 'Literal') return;
    if (n.type === 'MemberExpression') {
      const member = n as jsep.MemberExpression;
      const root = member.object;
      if (root.type === 'Identifier') {
        const rootName = (root as jsep.Identifier).name;
        const kind: ConfigKind | undefined = rootName === 'secrets' ? 'secret' : rootName === 'vars' ? 'var' : undefined;
        const property = member.property;
        const name =
          !member.computed && property.type === 'Identifier'
            ? (property as jsep.Identifier).name
            : property.type === 'Literal' && typeof (property as jsep.Literal).value === 'string'
              ? ((property as jsep.Literal).value as string)
              : undefined;
        if (kind && name !== undefined) into.push({ kind, name });
      }
    }
    const record = n as Record<string, unknown>;
    for (const field of CHILDREN) if (record[field] !== undefined) visit(record[field]);
    for (const field of LISTS) {
      const list = record[field];
      if (Array.isArray(list)) list.forEach(visit);
    }
  };
  visit(ast);
}

const referenceCache = new WeakMap<jsep.Expression, ConfigReference[]>();

/** The config references of a parsed expression, computed once per AST. */
export function referencesOf(ast: jsep.Expression): ConfigReference[] {
  let references = referenceCache.get(ast);
  if (!references) {
    references = [];
    collectReferences(ast, references);
    referenceCache.set(ast, references);
  }
  return references;
}
