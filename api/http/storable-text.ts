/**
 * Text PostgreSQL can store. A `text` value refuses the NUL character, and a
 * string that is not well-formed UTF-16 (a lone surrogate) has no UTF-8 form;
 * either reached the database as an error, and the request answered 500. Path
 * and query parameters are checked once, where routes are mounted (route.ts),
 * so every route answers 400 in its family's dialect before anything is looked up.
 */
import type { FieldError } from './errors';

/** One field error per parameter value PostgreSQL could not store, at `/<prefix>/<name>`. */
export function unstorableParams(values: Record<string, unknown>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(values)) {
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === 'string' && !isStorableText(text)))
      errors.push({ path: `/${prefix}/${name}`, message: 'contains a NUL character or a lone surrogate, which cannot be stored' });
  }
  return errors;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}
