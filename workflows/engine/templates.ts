/**
 * `${{ }}` substitution in step configs and inputs (engine-reference §3):
 * a string that is exactly one `${{ expr }}` keeps the value's type
 * (whole-value); mixed with text, values are stringified and concatenated
 * (embedded).
 *
 * Templates are code, everything else is data (DESIGN §3): only strings of
 * the published definition are ever parsed, once. What a template yields is
 * never parsed again, at any depth, so a payload that carries `${{ … }}` stays
 * plain text everywhere.
 *
 * Strings that reference a deferred root (`secrets`) are not resolved in the
 * workflow, so secret values never enter workflow state or Temporal history.
 * They are reported as {@link DeferredTemplate}s (their place and their
 * definition source) for the activity, which evaluates exactly those and
 * nothing else ({@link applyDeferred}). A plugin that runs inside the
 * workflow and only shows text (`log`) has them rendered masked instead
 * ({@link TemplateOptions.mask}): every other segment is evaluated, each one
 * that reads a secret becomes {@link SECRET_MASK}, and the secret is never
 * loaded at all.
 */
import { evaluateExpression, stringify, type EvaluationScope } from './evaluate';
import { collectReferences, parseExpression, templateSources, type ConfigReference } from './expressions';

const WHOLE = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/;
const SEGMENT = /\$\{\{([\s\S]*?)\}\}/g;

export type PathKey = string | number;

/** A definition string the activity evaluates because it reads a secret: where its value goes, and its source. */
export interface DeferredTemplate {
  /** `bound`: one template of a script, whose text goes to `bound[property][index]` (see {@link resolveScript}). */
  target: 'config' | 'inputs' | 'bound';
  /** Keys from the target down to the string. */
  path: PathKey[];
  /** The string exactly as the definition wrote it. */
  template: string;
}

/** What a secret (or anything computed from one) shows as where it is never resolved: the scrubber's mark too. */
export const SECRET_MASK = '<redacted>';

export interface TemplateOptions {
  /** Roots whose strings stay unresolved (default: `secrets`). */
  deferredRoots?: ReadonlySet<string>;
  /** Told about each string left unresolved: its path in the value and its definition source. */
  onDeferred?: (path: PathKey[], template: string) => void;
  /**
   * Render strings that read a deferred root instead of leaving them: each segment that reads one becomes
   * this text (whatever it computes), the others are evaluated. Nothing is reported through `onDeferred`.
   */
  mask?: string;
}

const DEFAULT_DEFERRED: ReadonlySet<string> = new Set(['secrets']);

/**
 * Resolves every template in a definition value, returning a new value. A
 * string that references a deferred root is returned as written (and reported
 * through `onDeferred`); a whole-value template's result is returned as is.
 */
export function resolveTemplates(value: unknown, scope: EvaluationScope, options: TemplateOptions = {}): unknown {
  const deferred = options.deferredRoots ?? DEFAULT_DEFERRED;
  const visit = (node: unknown, path: PathKey[]): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('${{')) return node;
      if (readsDeferred(node, deferred)) {
        if (options.mask !== undefined) return resolveMasked(node, scope, deferred, options.mask);
        options.onDeferred?.(path, node);
        return node;
      }
      return resolveString(node, scope);
    }
    if (Array.isArray(node)) return node.map((child, index) => visit(child, [...path, index]));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) defineOwn(out, key, visit(child, [...path, key]));
      return out;
    }
    return node;
  };
  return visit(value, []);
}

/** A step's declared inputs, resolved, with the templates left for the activity. */
export interface ResolvedInputs {
  values: Record<string, unknown>;
  deferred: DeferredTemplate[];
}

export function resolveInputs(inputs: Record<string, unknown>, scope: EvaluationScope): ResolvedInputs {
  const deferred: DeferredTemplate[] = [];
  const values = resolveTemplates(inputs, scope, { onDeferred: (path, template) => deferred.push({ target: 'inputs', path, template }) });
  return { values: values as Record<string, unknown>, deferred };
}

/**
 * A script's templates (a config property of format `script`: code-exec `code`), each evaluated on its
 * own to its text (as embedding gives it), in order. The script itself is never resolved: the sandbox
 * reads these texts as values (./script-templates.ts). A template that reads a secret is left to the
 * activity (`onDeferred` gets its index and source; its text here is empty).
 */
export function resolveScript(code: string, scope: EvaluationScope, onDeferred: (index: number, template: string) => void): string[] {
  return templateSources(code).sources.map((source, index) => {
    const template = `\${{${source}}}`;
    if (readsDeferred(template, DEFAULT_DEFERRED)) {
      onDeferred(index, template);
      return '';
    }
    return stringify(evaluateExpression(source, scope));
  });
}

/** One definition string, every segment evaluated in a single pass (a segment's result is never scanned again). */
function resolveString(text: string, scope: EvaluationScope): unknown {
  const whole = WHOLE.exec(text);
  if (whole && !whole[1].includes('}}')) return evaluateExpression(whole[1], scope);
  return text.replace(SEGMENT, (_segment, source: string) => stringify(evaluateExpression(source, scope)));
}

/**
 * A definition string that reads a secret as a reader may see it: each segment that reads one shown as
 * {@link SECRET_MASK}, the others evaluated (the whole string masked when one of those fails to evaluate).
 */
export function maskedTemplate(text: string, scope: EvaluationScope): string {
  try {
    return resolveMasked(text, scope, DEFAULT_DEFERRED, SECRET_MASK);
  } catch {
    return SECRET_MASK;
  }
}

/** A definition string that reads a deferred root, each segment reading one shown as `mask`, the others evaluated as text. */
function resolveMasked(text: string, scope: EvaluationScope, deferred: ReadonlySet<string>, mask: string): string {
  const whole = WHOLE.exec(text);
  if (whole && !whole[1].includes('}}')) return mask;
  return text.replace(SEGMENT, (segment, source: string) =>
    readsDeferred(segment, deferred) ? mask : stringify(evaluateExpression(source, scope)),
  );
}

/** What a plugin call carries that templates fill: its config, its inputs, and its scripts' template texts. */
export interface CallValues {
  config: Record<string, unknown>;
  inputs: Record<string, unknown>;
  bound?: Record<string, string[]>;
}

/**
 * The activity's half: evaluates each deferred template (a definition string)
 * with the secrets in scope and writes its value at its place, on copies of
 * the call's config, inputs and script texts (a script template's value as its
 * text). Nothing else in them is looked at.
 */
export function applyDeferred(values: CallValues, deferred: readonly DeferredTemplate[], scope: EvaluationScope): CallValues {
  if (deferred.length === 0) return values;
  const out = {
    config: structuredClone(values.config),
    inputs: structuredClone(values.inputs),
    bound: structuredClone(values.bound ?? {}),
  };
  for (const { target, path, template } of deferred) {
    const value = resolveString(template, scope);
    setAtPath(out, [target, ...path], target === 'bound' ? stringify(value) : value);
  }
  return out;
}

/** The `secrets.X` names deferred templates read: the definition's references, never anything found in data. */
export function deferredSecretNames(deferred: readonly DeferredTemplate[]): string[] {
  const names = new Set<string>();
  for (const { template } of deferred)
    for (const reference of referencesIn(template)) if (reference.kind === 'secret') names.add(reference.name);
  return [...names].sort();
}

/**
 * The non-deferred part of a scope that deferred templates also read (such as
 * `vars.BASE + secrets.KEY`), so the activity can evaluate them whole. Roots
 * are matched by name in the template text: a superset is harmless, as none
 * of them holds a secret.
 */
export function scopeForDeferred(
  deferred: readonly DeferredTemplate[],
  scope: EvaluationScope,
  deferredRoots: ReadonlySet<string> = DEFAULT_DEFERRED,
): Record<string, unknown> | undefined {
  if (deferred.length === 0) return undefined;
  const text = deferred.map((entry) => entry.template).join('\n');
  const picked: Record<string, unknown> = {};
  for (const root of Object.keys(scope)) {
    if (deferredRoots.has(root) || !rootPattern(root).test(text)) continue;
    picked[root] = scope[root];
  }
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/**
 * The pattern finding a scope root by name, compiled once per name: roots are the scope's fixed
 * names and the loop variables definitions choose, so the cache stays small; it is bounded all the same.
 */
const ROOT_PATTERNS = new Map<string, RegExp>();
const ROOT_PATTERN_CACHE_SIZE = 512;

function rootPattern(root: string): RegExp {
  let pattern = ROOT_PATTERNS.get(root);
  if (pattern === undefined) {
    // A root is an identifier; anything else is escaped whole.
    pattern = new RegExp(`(^|[^A-Za-z0-9_$.])${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_$])`);
    if (ROOT_PATTERNS.size >= ROOT_PATTERN_CACHE_SIZE) ROOT_PATTERNS.clear();
    ROOT_PATTERNS.set(root, pattern);
  }
  return pattern;
}

/** Writes `value` at `path` inside `root`, through own properties only (a `__proto__` key is a plain key here). */
function setAtPath(root: Record<string, unknown>, path: PathKey[], value: unknown): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return;
    node = (node as Record<PathKey, unknown>)[key];
  }
  if (node !== null && typeof node === 'object') defineOwn(node as Record<PathKey, unknown>, path[path.length - 1], value);
}

function defineOwn(target: Record<PathKey, unknown>, key: PathKey, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function referencesIn(template: string): ConfigReference[] {
  const references: ConfigReference[] = [];
  for (const source of templateSources(template).sources) {
    const parsed = parseExpression(source);
    if (parsed.ast) collectReferences(parsed.ast, references);
  }
  return references;
}

const deferredCache = new Map<string, boolean>();

/** Whether a definition string has a segment that references a deferred root. */
function readsDeferred(text: string, deferred: ReadonlySet<string>): boolean {
  if (deferred.size === 0) return false;
  const cacheKey = `${[...deferred].join(',')}\u0000${text}`;
  const cached = deferredCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const result = referencesIn(text).some((reference) => deferred.has(reference.kind === 'secret' ? 'secrets' : 'vars'));
  if (deferredCache.size > 2000) deferredCache.clear();
  deferredCache.set(cacheKey, result);
  return result;
}
