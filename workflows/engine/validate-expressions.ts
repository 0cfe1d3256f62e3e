/** Walks values for `${{ }}` templates and raw expressions, recording parse errors and config references. */
import type { DefinitionIssue } from './definition';
import { parseExpression, referencesOf, templateSources, unwrapRaw, type ConfigReference } from './expressions';
import { join } from './pointer';
import { unsupportedIn } from './expression-support';
import type jsep from 'jsep';

/** Who reads an expression, so its references can be checked against what has run by then (./validate-references.ts). */
export type ReaderSite =
  { kind: 'step'; stepId: string } | { kind: 'connection'; from: string } | { kind: 'outputs' } | { kind: 'variables' };

/** One parsed expression: its AST, its source, where it is written and who reads it. */
export interface ParsedSite {
  ast: jsep.Expression;
  source: string;
  path: string;
  site: ReaderSite;
}

export interface ExpressionContext {
  issues: DefinitionIssue[];
  references: ConfigReference[];
  /** Longest expression accepted (WORKFLOW_MAX_EXPRESSION_LENGTH), when publishing. */
  maxExpressionLength?: number;
  /** The reader of the expressions being checked now; with it, each parsed one is kept in `parsed`. */
  site?: ReaderSite;
  parsed?: ParsedSite[];
}

/** Parses one expression source unless it is over the length limit; records the problem either way. */
function parseChecked(source: string, path: string, context: ExpressionContext, describe: (error: string) => string) {
  const limit = context.maxExpressionLength;
  if (limit !== undefined && source.length > limit) {
    context.issues.push({
      path,
      message: `has an expression of ${source.length} characters; at most ${limit} are allowed (WORKFLOW_MAX_EXPRESSION_LENGTH)`,
    });
    return undefined;
  }
  const parsed = parseExpression(source);
  if (parsed.error) context.issues.push({ path, message: describe(parsed.error) });
  if (!parsed.ast) return undefined;
  // What the evaluator would refuse whatever the data is refused now, in its words.
  const refused = unsupportedIn(parsed.ast);
  if (refused !== undefined) {
    context.issues.push({ path, message: `expression "${source.trim()}": ${refused}` });
    return undefined;
  }
  if (context.site && context.parsed) context.parsed.push({ ast: parsed.ast, source, path, site: context.site });
  return parsed.ast;
}

/** A raw expression (deciders, conditions); exactly one `${{ }}` around it is unwrapped. */
export function checkRaw(source: string, path: string, context: ExpressionContext): void {
  const unwrapped = unwrapRaw(source);
  if (unwrapped.includes('${{')) {
    checkTemplates(source, path, context);
    return;
  }
  const ast = parseChecked(unwrapped, path, context, (error) => `expression does not parse: ${error}`);
  if (ast) context.references.push(...referencesOf(ast));
}

/** Every string inside `value` (recursively), checked for templates. Depth-limited against hostile input. */
export function checkTemplates(value: unknown, path: string, context: ExpressionContext, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === 'string') {
    if (!value.includes('${{')) return;
    const { sources, error } = templateSources(value);
    if (error) context.issues.push({ path, message: error });
    for (const source of sources) {
      const ast = parseChecked(source, path, context, (error) => `expression "${source.trim()}" does not parse: ${error}`);
      if (ast) context.references.push(...referencesOf(ast));
    }
    return;
  }
  // Child paths are built only for values that can hold a template.
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (mayHoldTemplate(item)) checkTemplates(item, join(path, index), context, depth + 1);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (mayHoldTemplate(item)) checkTemplates(item, join(path, key), context, depth + 1);
  }
}

function mayHoldTemplate(value: unknown): boolean {
  return typeof value === 'string' ? value.includes('${{') : value !== null && typeof value === 'object';
}
