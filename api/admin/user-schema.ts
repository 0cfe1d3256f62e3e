/**
 * JSON Schemas written by users (service and provider specification settings).
 * They are compiled with Ajv (`$data` enabled, so `{"minimum": {"$data":
 * "1/min_size"}}` compares siblings) only after a structural budget check, so
 * that a schema built to be slow is refused before it costs anything:
 * - depth and node-count limits (deeply nested or huge schemas),
 * - regular expressions (`pattern`, `patternProperties`) that the linear-time
 *   RE2 engine compiles (no backreferences or lookarounds), of bounded
 *   length; Ajv matches them with that engine, so no value can make a
 *   pattern backtrack.
 * Compiled schemas are removed from Ajv's cache at once: nothing user-written
 * accumulates in memory.
 */
import Ajv, { type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import type { FieldError } from '../http/errors';
import { toFieldErrors } from '../http/validation';
import { invalidJsonSchema } from './errors';

export const SCHEMA_LIMITS = { depth: 24, nodes: 2000, patternLength: 256 } as const;

/**
 * Ajv's regular-expression engine for user schemas: RE2 semantics, so
 * matching time is linear in the input whatever the pattern (`(a+)+$` cannot
 * backtrack). An RE2JS object's `test` is an unanchored search, as JSON
 * Schema patterns are, and its `toString` is its pattern (Ajv keys compiled
 * patterns by it).
 */
const linearRegExp = Object.assign((pattern: string) => RE2JS.compile(pattern), { code: 'RE2JS.compile' });

function createAjv(customKeywords: boolean): Ajv {
  const ajv = new Ajv({ $data: true, allErrors: true, strict: false, validateFormats: true, code: { regExp: linearRegExp } });
  addFormats(ajv);
  if (customKeywords) {
    // Provider settings schemas may mark properties; the keywords annotate, so they never fail a value.
    ajv.addKeyword({ keyword: 'tag', metaSchema: { type: 'boolean' } });
    ajv.addKeyword({ keyword: 'secret', metaSchema: { type: 'boolean' } });
    ajv.addKeyword({
      keyword: 'groups',
      metaSchema: {
        type: 'array',
        maxItems: 100,
        items: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'object' }] },
      },
    });
  }
  return ajv;
}

const serviceAjv = createAjv(false);
const providerAjv = createAjv(true);

export type SchemaDialect = 'service' | 'provider';

export interface CompiledUserSchema {
  validate(value: unknown): FieldError[];
}

/** Throws a 400 naming `path` when the schema is over budget, unsafe, or does not compile. */
export function compileUserSchema(schema: unknown, dialect: SchemaDialect, path: string): CompiledUserSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw invalidJsonSchema('it must be an object', path);
  checkBudget(schema, path);
  const ajv = dialect === 'provider' ? providerAjv : serviceAjv;
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = ajv.compile(schema as AnySchema);
  } catch (error) {
    throw invalidJsonSchema((error as Error).message.slice(0, 300), path);
  } finally {
    ajv.removeSchema(schema);
  }
  return { validate: (value) => (validate(value) ? [] : toFieldErrors(validate.errors ?? []).slice(0, 20)) };
}

/** Keywords whose `$data` value is a number or a plain value, cheap whatever the data says. */
const DATA_KEYWORDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'const',
  'enum',
]);
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
export const MAX_UNIQUE_ITEMS = 1000;

/**
 * `uniqueItems` compares arrays of objects pairwise (quadratic): it needs a
 * `maxItems` bound, unless the items are scalars (hashed, linear).
 */
function checkUniqueItems(node: { maxItems?: unknown; items?: unknown }, path: string): void {
  if (typeof node.maxItems === 'number' && node.maxItems <= MAX_UNIQUE_ITEMS) return;
  const itemType = (node.items as { type?: unknown } | undefined)?.type;
  if (typeof itemType === 'string' && SCALAR_TYPES.has(itemType)) return;
  throw invalidJsonSchema(`uniqueItems needs maxItems of at most ${MAX_UNIQUE_ITEMS} unless the items are scalars`, path);
}

function checkBudget(root: object, path: string): void {
  let nodes = 0;
  const stack: Array<{ value: unknown; depth: number; key: string | undefined; parentKey: string | undefined }> = [
    { value: root, depth: 0, key: undefined, parentKey: undefined },
  ];
  while (stack.length > 0) {
    const { value, depth, key, parentKey } = stack.pop()!;
    nodes += 1;
    if (nodes > SCHEMA_LIMITS.nodes) throw invalidJsonSchema(`it has more than ${SCHEMA_LIMITS.nodes} nodes`, path);
    if (depth > SCHEMA_LIMITS.depth) throw invalidJsonSchema(`it is nested deeper than ${SCHEMA_LIMITS.depth} levels`, path);
    if (key === 'pattern' && typeof value === 'string') checkPattern(value, path);
    if (parentKey === 'patternProperties' && key !== undefined) checkPattern(key, path);
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#'))
      throw invalidJsonSchema('only local $ref values (#/...) are allowed', path);
    // A `$data` pattern or format would be compiled from the submitted value, after every check here.
    if (key === '$data' && parentKey !== undefined && !DATA_KEYWORDS.has(parentKey))
      throw invalidJsonSchema(`$data is not allowed in "${parentKey}"`, path);
    if (typeof value === 'object' && value !== null && (value as { uniqueItems?: unknown }).uniqueItems === true)
      checkUniqueItems(value, path);
    if (typeof value === 'object' && value !== null) {
      for (const [childKey, child] of Object.entries(value)) stack.push({ value: child, depth: depth + 1, key: childKey, parentKey: key });
    }
  }
}

/** Refuses a pattern the linear-time engine cannot compile (backreferences, lookarounds, bad syntax) or one that is too long. */
export function checkPattern(pattern: string, path: string): void {
  const refuse = (why: string) => {
    throw invalidJsonSchema(`pattern ${JSON.stringify(pattern.slice(0, 60))} ${why}`, path);
  };
  if (pattern.length > SCHEMA_LIMITS.patternLength) refuse(`is longer than ${SCHEMA_LIMITS.patternLength} characters`);
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    refuse(`is not supported by the linear-time engine (RE2): ${(error as Error).message.slice(0, 120)}`);
  }
}
