/**
 * A definition as editor text (YAML or JSON) and back. The `yaml` library reads
 * both (JSON is YAML's flow style) and keeps every node's range, so a problem
 * the API reports at a JSON pointer (`/steps/one/dependsOn/0`) is underlined at
 * the text that pointer names.
 */
import { isMap, isScalar, isSeq, parseDocument, stringify, type Document, type Node as YamlNode } from 'yaml';

export type Format = 'yaml' | 'json';

/** Where in the text: offsets into the document. */
export interface TextRange {
  from: number;
  to: number;
}

export interface ParseProblem extends TextRange {
  message: string;
}

export type Parsed =
  { ok: true; value: Record<string, unknown>; locate: (pointer: string) => TextRange } | { ok: false; problems: ParseProblem[] };

/** Keys the server computes or the editor shows beside the text (release notes): not part of what the author edits. */
const NOT_EDITED = ['triggers', 'releaseNotes'];

/** Stored definitions come back with their keys in PostgreSQL's order (jsonb): shown in the order authors write them. */
const TOP_ORDER = [
  'name',
  'key',
  'description',
  'path',
  'nrn',
  'semanticVersion',
  'inputs',
  'variables',
  'secrets',
  'steps',
  'connections',
];
const STEP_ORDER = ['name', 'type', 'pluginType', 'description', 'config', 'inputs', 'dependsOn'];

function ordered(value: Record<string, unknown>, order: string[]): Record<string, unknown> {
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => rank(a) - rank(b)));
}

/** The text an author edits for a stored definition (a step's `id` is left out where its key in `steps` says it). */
export function definitionText(definition: Record<string, unknown> | null | undefined, format: Format): string {
  const shown = ordered(Object.fromEntries(Object.entries(definition ?? {}).filter(([key]) => !NOT_EDITED.includes(key))), TOP_ORDER);
  const steps = shown.steps;
  if (steps && typeof steps === 'object' && !Array.isArray(steps)) {
    shown.steps = Object.fromEntries(
      Object.entries(steps as Record<string, Record<string, unknown>>).map(([id, step]) => {
        if (!step || typeof step !== 'object') return [id, step];
        const { id: stepId, ...rest } = step;
        return [id, ordered(stepId === id ? rest : step, STEP_ORDER)];
      }),
    );
  }
  return format === 'json' ? `${JSON.stringify(shown, null, 2)}\n` : stringify(shown, { lineWidth: 0 });
}

/** The same document in the other format (only when it parses). */
export function convert(text: string, to: Format): string | undefined {
  const parsed = parseDefinition(text, to === 'json' ? 'yaml' : 'json');
  return parsed.ok ? (to === 'json' ? `${JSON.stringify(parsed.value, null, 2)}\n` : stringify(parsed.value, { lineWidth: 0 })) : undefined;
}

export function parseDefinition(text: string, format: Format): Parsed {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const end = text.length;
  const clamp = (n: number) => Math.max(0, Math.min(end, n));
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({ from: clamp(e.pos[0]), to: clamp(Math.max(e.pos[1], e.pos[0] + 1)), message: e.message })),
    };
  }
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (error) {
      const at = /position (\d+)/.exec(String((error as Error).message));
      const from = clamp(at ? Number(at[1]) : 0);
      return { ok: false, problems: [{ from, to: clamp(from + 1), message: (error as Error).message }] };
    }
  }
  const value: unknown = doc.toJS();
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problems: [{ from: 0, to: clamp(1), message: 'A definition is an object (name, steps, …).' }] };
  }
  return { ok: true, value: value as Record<string, unknown>, locate: (pointer) => locate(doc, pointer, end) };
}

/** The text a JSON pointer names: the value's range, else the key of the deepest pair that exists on the way. */
function locate(doc: Document, pointer: string, end: number): TextRange {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = doc.contents;
  let best: TextRange = rangeOf(node as YamlNode, end, true);
  for (const segment of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === segment);
      if (!pair) break;
      if (isScalar(pair.key)) best = rangeOf(pair.key, end);
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
    } else break;
    // A collection is marked at its key (its first line), a scalar over its whole text.
    if (node && !isMap(node) && !isSeq(node)) best = rangeOf(node as YamlNode, end);
    else if (isSeq(node) && (node as { flow?: boolean }).flow) best = rangeOf(node, end);
  }
  return best;
}

function rangeOf(node: YamlNode | null | undefined, end: number, firstLine = false): TextRange {
  const range = node?.range;
  if (!range) return { from: 0, to: Math.min(1, end) };
  const from = Math.min(range[0], end);
  const to = Math.min(Math.max(range[1], from + 1), end);
  return firstLine ? { from, to: Math.min(to, from + 1) } : { from, to };
}
