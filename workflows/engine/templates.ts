/**
 * `${{ }}` substitution in step configs and inputs (engine-reference §3):
 * a string that is exactly one `${{ expr }}` keeps the value's type
 * (whole-value); mixed with text, values are stringified and concatenated
 * (embedded). Segments that reference a deferred root (`secrets`) are left
 * verbatim for the activity that resolves them late, so secret values never
 * enter workflow state or Temporal history.
 */
import { evaluateExpression, stringify, type EvaluationScope } from './evaluate';
import { collectReferences, parseExpression, type ConfigReference } from './expressions';

const WHOLE = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/;
const SEGMENT = /\$\{\{([\s\S]*?)\}\}/g;

export interface TemplateOptions {
  /** Roots whose segments stay unresolved (default: `secrets`). */
  deferredRoots?: ReadonlySet<string>;
}

const DEFAULT_DEFERRED: ReadonlySet<string> = new Set(['secrets']);

/** Resolves every template in a JSON-like value, returning a new value. */
export function resolveTemplates(value: unknown, scope: EvaluationScope, options: TemplateOptions = {}): unknown {
  const deferred = options.deferredRoots ?? DEFAULT_DEFERRED;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return resolveString(node, scope, deferred);
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) out[key] = visit(child);
      return out;
    }
    return node;
  };
  return visit(value);
}

function resolveString(text: string, scope: EvaluationScope, deferred: ReadonlySet<string>): unknown {
  if (!text.includes('${{')) return text;
  const whole = WHOLE.exec(text);
  if (whole && !whole[1].includes('}}')) {
    return referencesDeferred(whole[1], deferred) ? text : evaluateExpression(whole[1], scope);
  }
  return text.replace(SEGMENT, (segment, source: string) =>
    referencesDeferred(source, deferred) ? segment : stringify(evaluateExpression(source, scope)),
  );
}

/** Sources of the segments left for the activity (those that reference a deferred root), anywhere in the value. */
export function deferredSegmentSources(
  value: unknown,
  deferredRoots: ReadonlySet<string> = DEFAULT_DEFERRED,
  into: string[] = [],
): string[] {
  if (typeof value === 'string') {
    if (value.includes('${{'))
      for (const match of value.matchAll(SEGMENT)) if (referencesDeferred(match[1], deferredRoots)) into.push(match[1]);
  } else if (Array.isArray(value)) {
    for (const item of value) deferredSegmentSources(item, deferredRoots, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deferredSegmentSources(item, deferredRoots, into);
  }
  return into;
}

/**
 * The non-deferred part of a scope that deferred segments also read (such as
 * `vars.BASE + secrets.KEY`), so the activity can evaluate them whole. Roots
 * are matched by name in the source text: a superset is harmless, as none of
 * them holds a secret.
 */
export function scopeForDeferred(
  sources: string[],
  scope: EvaluationScope,
  deferredRoots: ReadonlySet<string> = DEFAULT_DEFERRED,
): Record<string, unknown> | undefined {
  if (sources.length === 0) return undefined;
  const text = sources.join('\n');
  const picked: Record<string, unknown> = {};
  for (const root of Object.keys(scope)) {
    if (deferredRoots.has(root) || !new RegExp(`(^|[^A-Za-z0-9_$.])${root.replace(/\$/g, '\\$')}(?![A-Za-z0-9_$])`).test(text)) continue;
    picked[root] = scope[root];
  }
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/** Whether a template string still holds a segment that references a deferred root. */
export function hasDeferredSegments(value: unknown, deferredRoots: ReadonlySet<string> = DEFAULT_DEFERRED): boolean {
  if (typeof value === 'string') {
    for (const match of value.matchAll(SEGMENT)) if (referencesDeferred(match[1], deferredRoots)) return true;
    return false;
  }
  if (Array.isArray(value)) return value.some((item) => hasDeferredSegments(item, deferredRoots));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => hasDeferredSegments(item, deferredRoots));
  return false;
}

const deferredCache = new Map<string, boolean>();

function referencesDeferred(source: string, deferred: ReadonlySet<string>): boolean {
  if (deferred.size === 0) return false;
  const cacheKey = `${[...deferred].join(',')}\u0000${source}`;
  const cached = deferredCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const parsed = parseExpression(source);
  let result = false;
  if (parsed.ast) {
    const references: ConfigReference[] = [];
    collectReferences(parsed.ast, references);
    result = references.some((reference) => deferred.has(reference.kind === 'secret' ? 'secrets' : 'vars'));
  }
  if (deferredCache.size > 2000) deferredCache.clear();
  deferredCache.set(cacheKey, result);
  return result;
}
