/**
 * The `vars.X` names a part of a definition reads, found in the definition's own
 * strings (never in runtime data): an execution resolves them once at start, a
 * trigger plugin's activation before it calls the plugin.
 */
import { collectReferences, parseExpression, templateSources, type ConfigReference } from './expressions';

/**
 * Sorted `vars.*` names read by `values`: in `${{ }}` templates, and, with `bareExpressions`, in a
 * string without one read as a whole expression (a condition, a decider's expression).
 */
export function varReferences(values: unknown[], options: { bareExpressions: boolean }): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const sources = value.includes('${{') ? templateSources(value).sources : options.bareExpressions ? [value] : [];
      for (const source of sources) {
        const parsed = parseExpression(source);
        if (!parsed.ast) continue;
        const references: ConfigReference[] = [];
        collectReferences(parsed.ast, references);
        for (const reference of references) if (reference.kind === 'var') names.add(reference.name);
      }
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  values.forEach(visit);
  return [...names].sort();
}
