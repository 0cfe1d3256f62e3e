/**
 * Text PostgreSQL can store. A `text` or `jsonb` value refuses the NUL
 * character, and a string that is not well-formed UTF-16 (a lone surrogate)
 * has no UTF-8 form; either reached the database as an error, and the request
 * answered 500. Path and query parameters are checked once, where routes are
 * mounted (route.ts), and every string of a body (keys included) where bodies
 * are read (body.ts), so every route answers 400 in its family's dialect
 * before anything is looked up or stored.
 */
import type { FieldError } from './errors';

const UNSTORABLE = 'contains a NUL character or a lone surrogate, which cannot be stored';

/** One field error per parameter value PostgreSQL could not store, at `/<prefix>/<name>`. */
export function unstorableParams(values: Record<string, unknown>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(values)) {
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === 'string' && !isStorableText(text)))
      errors.push({ path: `/${prefix}/${name}`, message: UNSTORABLE });
  }
  return errors;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}

/**
 * The first string of a parsed body (a key or a value) PostgreSQL could not store, as a field
 * error at its JSON pointer; undefined when there is none. Iterative: the body's depth is
 * already bounded, but no walk here recurses anyway.
 */
export function unstorableBodyText(body: unknown): FieldError | undefined {
  const stack: Array<{ node: unknown; path: string }> = [{ node: body, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (!isStorableText(node)) return { path, message: UNSTORABLE };
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        const at = `${path}/${pointerToken(key)}`;
        if (!isStorableText(key)) return { path: at, message: `its name ${UNSTORABLE}` };
        if (typeof child === 'string' || (child !== null && typeof child === 'object')) stack.push({ node: child, path: at });
      }
    }
  }
  return undefined;
}

function pointerToken(key: string): string {
  // The pointer names the field without carrying the offending character back.
  return key.replace(/~/g, '~0').replace(/\//g, '~1').split('\u0000').join('\\u0000');
}
