/**
 * Reading workflow files: YAML or JSON text (or a path to one) parsed,
 * normalized and validated exactly as the API does on publish, with each
 * problem located at the line and column of the document it points into.
 */
import { existsSync, readFileSync } from 'node:fs';
import YAML, { LineCounter, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';
import { normalizeDefinition as normalizeDocument, type WorkflowDefinition } from '../workflows/engine';
import { validateDefinition, type KitValidationOptions, type ValidationIssue, type ValidationWarning } from './validate';

/** A problem found in a definition: a JSON pointer into the document, and where that is in the file. */
export interface DefinitionError extends ValidationIssue {
  line?: number;
  column?: number;
}

export interface LoadedDefinition {
  /** The normalized definition (present when the document parsed as an object, even with errors). */
  definition?: WorkflowDefinition;
  errors: DefinitionError[];
  warnings: ValidationWarning[];
  /** The file read, when a path was given. */
  file?: string;
}

/** Aliases expand in place; a few are plenty for a workflow and bound "billion laughs" documents (the API's limit). */
const MAX_ALIAS_COUNT = 100;

/** A path rather than a document: one line, a definition file extension, and the file exists. */
export function looksLikePath(textOrPath: string): boolean {
  return !textOrPath.includes('\n') && /\.(ya?ml|json)$/i.test(textOrPath.trim()) && existsSync(textOrPath.trim());
}

/**
 * A YAML or JSON document as read, before validation: its value (absent when
 * it does not parse), its syntax errors, and where a JSON pointer lands in it,
 * so that problems found later (by the validator here, or by a server) point
 * at a line of the file.
 */
export interface ParsedDocument {
  value?: unknown;
  errors: DefinitionError[];
  locate(pointer: string): { line?: number; column?: number };
  /** The file read, when a path was given. */
  file?: string;
}

/** Reads a YAML or JSON document (text, or a path to a file) without validating it. */
export function parseDocument(textOrPath: string): ParsedDocument {
  const file = looksLikePath(textOrPath) ? textOrPath.trim() : undefined;
  const nowhere = { ...(file ? { file } : {}), locate: () => ({}) };
  if (!file && /^[^\n]*\.(ya?ml|json)\s*$/i.test(textOrPath) && !/[:{[]/.test(textOrPath))
    return { ...nowhere, errors: [{ path: '', message: `no such file: ${textOrPath.trim()}` }], file: textOrPath.trim() };
  const text = file ? readFileSync(file, 'utf8') : textOrPath;
  const lines = new LineCounter();
  const document = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const position = lines.linePos(offset);
    return { line: position.line, column: position.col };
  };
  if (document.errors.length > 0)
    return {
      ...nowhere,
      errors: document.errors.map((error) => ({ path: '', message: error.message.split('\n')[0], ...at(error.pos[0]) })),
    };
  try {
    return {
      ...nowhere,
      value: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }),
      errors: [],
      locate: (pointer) => at(offsetOf(document, pointer)),
    };
  } catch (error) {
    return { ...nowhere, errors: [{ path: '', message: (error as Error).message }] };
  }
}

/** Parses, normalizes and validates a YAML or JSON definition (text, or a path to a file). */
export function loadDefinition(textOrPath: string, options: KitValidationOptions = {}): LoadedDefinition {
  const parsed = parseDocument(textOrPath);
  const file = parsed.file ? { file: parsed.file } : {};
  if (parsed.errors.length > 0) return { errors: parsed.errors, warnings: [], ...file };
  const { value } = parsed;
  const result = validateDefinition(value, options);
  const definition =
    result.definition ??
    (value !== null && typeof value === 'object' && !Array.isArray(value)
      ? normalizeDocument(value as Record<string, unknown>).definition
      : undefined);
  return {
    definition,
    errors: result.errors.map((error) => ({ ...error, ...parsed.locate(error.path) })),
    warnings: result.warnings,
    ...file,
  };
}

/** The normalized definition: steps as a map by id, camelCase structural keys, everything inside `config` untouched. */
export function normalizeDefinition(document: Record<string, unknown>): WorkflowDefinition {
  return normalizeDocument(document).definition;
}

/**
 * Where a JSON pointer lands in the YAML document: the node it names, else the
 * nearest ancestor that exists (a missing field is reported at its parent).
 */
function offsetOf(document: Document, pointer: string): number | undefined {
  let node: Node | null | undefined = document.contents;
  let offset = node?.range?.[0];
  if (pointer === '') return offset;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    let next: Node | null | undefined;
    if (isMap(node)) {
      const pair: Pair<unknown, unknown> | undefined = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === segment,
      );
      if (!pair) break;
      next = (pair.value as Node | null) ?? (pair.key as Node);
      if (!next?.range) next = pair.key as Node;
    } else if (isSeq(node)) {
      next = node.items[Number(segment)] as Node | undefined;
    }
    if (!next?.range) break;
    node = next;
    offset = next.range[0];
  }
  return offset;
}
