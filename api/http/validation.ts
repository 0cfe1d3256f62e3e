/**
 * Request validation with Ajv. Schemas are TypeBox (plain JSON Schema) objects,
 * compiled once and cached; the same objects feed the OpenAPI document.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from './errors';

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes });
  addFormats(ajv);
  return ajv;
}

/** Bodies are validated as sent (no coercion); query strings and path params are coerced. */
const bodyAjv = createAjv(false);
const paramAjv = createAjv(true);
const cache = new WeakMap<object, ValidateFunction>();
const paramCache = new WeakMap<object, ValidateFunction>();

export type Validator = (value: unknown) => FieldError[];

export function compileValidator(schema: object, kind: 'body' | 'params' = 'body'): Validator {
  const store = kind === 'body' ? cache : paramCache;
  let validate = store.get(schema);
  if (!validate) {
    validate = (kind === 'body' ? bodyAjv : paramAjv).compile(schema);
    store.set(schema, validate);
  }
  const compiled = validate;
  return (value) => (compiled(value) ? [] : toFieldErrors(compiled.errors ?? []));
}

/** Ajv errors as JSON-pointer field errors, one per offending field. */
export function toFieldErrors(errors: ErrorObject[], prefix = ''): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors) {
    let path = prefix + error.instancePath;
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      path += `/${escapePointer(String(params.missingProperty))}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(params.additionalProperty))}`;
      message = 'is not an allowed property';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    // anyOf/oneOf produce one error per branch plus a summary; keep the summary
    // only when nothing more precise was reported at that path.
    if ((error.keyword === 'anyOf' || error.keyword === 'oneOf') && out.some((e) => e.path === path)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
