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

const TEMPLATE = /\$\{\{([\s\S]*?)\}\}/g;

/** Parses a raw expression; returns the AST or an error message. */
export function parseExpression(source: string): { ast?: jsep.Expression; error?: string } {
  if (source.trim() === '') return { error: 'expression is empty' };
  try {
    return { ast: jsep(source) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : 'expression does not parse' };
  }
}

/** The inner sources of every `${{ … }}` in a string, or an error for an unclosed one. */
export function templateSources(text: string): { sources: string[]; error?: string } {
  const sources: string[] = [];
  for (const match of text.matchAll(TEMPLATE)) sources.push(match[1]);
  const opened = text.split('${{').length - 1;
  if (opened > sources.length) return { sources, error: 'has an unclosed "${{"' };
  return { sources };
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

/** `secrets.X` / `vars.X` (also `secrets['X']`) anywhere in an AST. */
export function collectReferences(ast: jsep.Expression, into: ConfigReference[]): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const n = node as jsep.Expression;
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
    for (const value of Object.values(n)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value !== null && typeof value === 'object') visit(value);
    }
  };
  visit(ast);
}
