/**
 * A small JSON Schema interpreter for the console's forms (pure: no DOM). The
 * content security policy forbids eval, so Ajv cannot compile schemas in the
 * browser; this checks the keywords the forms render (type, required, enum,
 * const, minimum/maximum and their exclusive forms, minLength/maxLength,
 * pattern, minItems/maxItems) and Ajv's `$data` references for them
 * (`{"minimum": {"$data": "1/minReplicas"}}`: compare with another field's
 * current value). The API stays the authority: it validates with Ajv on save.
 */
export type Schema = Record<string, unknown>;

export interface Issue {
  /** JSON pointer of the offending value (`/maxReplicas`), as the API reports it. */
  path: string;
  message: string;
}

/** A keyword's operand: a literal, or a `$data` reference resolved against the whole value. */
export interface Operand {
  value: unknown;
  /** The relative JSON pointer when the operand is `$data`. */
  data?: string;
}

const COMPARISONS: Array<[keyword: string, symbol: string, holds: (v: number, limit: number) => boolean]> = [
  ['minimum', '≥', (v, l) => v >= l],
  ['exclusiveMinimum', '>', (v, l) => v > l],
  ['maximum', '≤', (v, l) => v <= l],
  ['exclusiveMaximum', '<', (v, l) => v < l],
];
const LENGTHS: Array<[keyword: string, symbol: string, holds: (n: number, limit: number) => boolean]> = [
  ['minLength', '≥', (n, l) => n >= l],
  ['maxLength', '≤', (n, l) => n <= l],
];
const ITEM_COUNTS: Array<[keyword: string, symbol: string, holds: (n: number, limit: number) => boolean]> = [
  ['minItems', '≥', (n, l) => n >= l],
  ['maxItems', '≤', (n, l) => n <= l],
];

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema's type (the first of a list; inferred from enum, properties or items when absent). */
export function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  if (Array.isArray(schema.enum)) return typeof schema.enum[0] === 'number' ? 'number' : 'string';
  if (isObject(schema.properties)) return 'object';
  if (isObject(schema.items)) return 'array';
  return undefined;
}

/** Splits a JSON pointer (`/a/b~1c`) into its tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export const toPointer = (tokens: readonly string[]): string =>
  tokens.length === 0 ? '' : `/${tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** The value at `tokens` inside `root` (undefined when absent). */
export function valueAt(root: unknown, tokens: readonly string[]): unknown {
  let current = root;
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else return undefined;
  }
  return current;
}

/**
 * Resolves a relative JSON pointer (`1/minReplicas`: up one level from the value at `at`,
 * then down `minReplicas`) as Ajv's `$data` does. Absent, malformed or `#` pointers give undefined.
 */
export function resolveRelative(relative: string, at: readonly string[], root: unknown): unknown {
  const match = /^(\d+)(.*)$/.exec(relative);
  if (!match) return undefined;
  const up = Number(match[1]);
  const rest = match[2];
  if (up > at.length || rest.startsWith('#')) return undefined;
  if (rest !== '' && !rest.startsWith('/')) return undefined;
  return valueAt(root, [...at.slice(0, at.length - up), ...pointerTokens(rest)]);
}

/** A keyword's operand: its literal, or a `{$data}` reference. */
export function operand(schema: Schema, keyword: string): Operand | undefined {
  const raw = schema[keyword];
  if (raw === undefined) return undefined;
  if (isObject(raw) && typeof raw.$data === 'string') return { value: undefined, data: raw.$data };
  return { value: raw };
}

/** The last token of a relative pointer, as a field name ("value of minReplicas"). */
const dataName = (relative: string): string => {
  const tokens = relative.replace(/^\d+/, '').split('/').filter(Boolean);
  return tokens.length > 0 ? tokens[tokens.length - 1] : relative;
};

const describeOperand = (o: Operand): string => (o.data !== undefined ? `value of ${dataName(o.data)}` : String(o.value));

/** Readable constraints of one field (`≥ 1`, `≤ value of maxReplicas`, `length ≤ 10`, `matches ^[a-z]+$`). */
export function describeConstraints(schema: Schema): string[] {
  const out: string[] = [];
  for (const [keyword, symbol] of COMPARISONS) {
    const o = operand(schema, keyword);
    if (o) out.push(`${symbol} ${describeOperand(o)}`);
  }
  for (const [keyword, symbol] of LENGTHS) {
    const o = operand(schema, keyword);
    if (o) out.push(`length ${symbol} ${describeOperand(o)}`);
  }
  for (const [keyword, symbol] of ITEM_COUNTS) {
    const o = operand(schema, keyword);
    if (o) out.push(`items ${symbol} ${describeOperand(o)}`);
  }
  if (typeof schema.pattern === 'string') out.push(`matches ${schema.pattern}`);
  if (typeof schema.format === 'string') out.push(`format ${schema.format}`);
  const c = operand(schema, 'const');
  if (c) out.push(`equals ${c.data !== undefined ? describeOperand(c) : JSON.stringify(c.value)}`);
  return out;
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every issue of `value` (found at `at` inside `root`) against `schema`. A `$data`
 * operand whose target is absent or of the wrong kind is ignored, as Ajv ignores it.
 */
export function check(schema: Schema, value: unknown, root: unknown = value, at: string[] = []): Issue[] {
  const issues: Issue[] = [];
  const path = toPointer(at);
  const add = (message: string) => issues.push({ path, message });
  const resolved = (o: Operand): unknown => (o.data !== undefined ? resolveRelative(o.data, at, root) : o.value);

  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  if (types.length > 0 && !types.some((t) => matchesType(value, t))) {
    add(`must be ${types.join(' or ')}`);
    return issues;
  }
  const e = operand(schema, 'enum');
  if (e) {
    const options = resolved(e);
    if (Array.isArray(options) && !options.some((o) => sameJson(o, value)))
      add(`must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
  }
  const c = operand(schema, 'const');
  if (c) {
    const expected = resolved(c);
    if ((c.data === undefined || expected !== undefined) && !sameJson(expected, value)) add(`must equal ${describeOperand(c)}`);
  }
  if (typeof value === 'number') {
    for (const [keyword, symbol, holds] of COMPARISONS) {
      const o = operand(schema, keyword);
      const limit = o && resolved(o);
      if (typeof limit === 'number' && !holds(value, limit))
        add(`must be ${symbol} ${describeOperand(o!)}${o!.data !== undefined ? ` (${limit})` : ''}`);
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    for (const [keyword, symbol, holds] of LENGTHS) {
      const o = operand(schema, keyword);
      const limit = o && resolved(o);
      if (typeof limit === 'number' && !holds(length, limit))
        add(`length must be ${symbol} ${describeOperand(o!)}${o!.data !== undefined ? ` (${limit})` : ''}`);
    }
    if (typeof schema.pattern === 'string') {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(schema.pattern, 'u');
      } catch {
        pattern = undefined; // The API refuses what RE2 cannot compile; here an unknown syntax is not checked.
      }
      if (pattern && !pattern.test(value)) add(`must match ${schema.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    for (const [keyword, symbol, holds] of ITEM_COUNTS) {
      const o = operand(schema, keyword);
      const limit = o && resolved(o);
      if (typeof limit === 'number' && !holds(value.length, limit)) add(`must have ${symbol} ${describeOperand(o!)} items`);
    }
    if (isObject(schema.items)) value.forEach((item, i) => issues.push(...check(schema.items as Schema, item, root, [...at, String(i)])));
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const name of required) {
      if (value[name] === undefined) issues.push({ path: toPointer([...at, name]), message: 'is required' });
    }
    for (const [name, child] of Object.entries(properties)) {
      if (value[name] !== undefined && isObject(child)) issues.push(...check(child, value[name], root, [...at, name]));
    }
  }
  return issues;
}

/**
 * A form input's text as the schema's type wants it: numbers parsed, empty text
 * absent (so `required` reports it), anything unparsable kept as text (so `type` reports it).
 */
export function parseInput(schema: Schema, text: string): unknown {
  const type = typeOf(schema);
  if (text === '') return undefined;
  if (type === 'number' || type === 'integer') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : text;
  }
  const options: unknown[] | undefined = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (options && typeof options[0] !== 'string') {
    const found = options.find((option) => JSON.stringify(option) === text);
    return found === undefined ? text : found;
  }
  return text;
}

/** The value of an array of primitives typed in one line per item. */
export function parseLines(itemSchema: Schema, text: string): unknown[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => parseInput(itemSchema, line) ?? line);
}

/** Whether the form renders the array as lines of text (items are primitives). */
export const isPrimitiveArray = (schema: Schema): boolean => {
  const items = isObject(schema.items) ? (schema.items as Schema) : {};
  const type = typeOf(items);
  return type === undefined || ['string', 'number', 'integer', 'boolean'].includes(type);
};

/** Maps the API's field errors (`/attributes/values/maxReplicas`) to the form's pointers (`/maxReplicas`). */
export function issuesUnder(prefix: string, errors: ReadonlyArray<{ path?: string; message?: string }>): Issue[] {
  return errors
    .filter((e) => typeof e.path === 'string' && (e.path === prefix || e.path.startsWith(`${prefix}/`)))
    .map((e) => ({ path: e.path!.slice(prefix.length), message: e.message ?? 'is invalid' }));
}
