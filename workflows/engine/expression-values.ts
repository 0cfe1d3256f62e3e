/**
 * The values the expression evaluator computes with (./evaluate.ts): its error, the bounds on what one
 * evaluation may build (strings and arrays sized before they are built where an operation multiplies them),
 * and the conversions its operators and functions share (numbers, text, truthiness). Pure.
 */

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly code = 'EXPRESSION_ERROR',
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** Nodes one evaluation may visit. */
export const MAX_OPERATIONS = 10_000;
/** Characters of a string an expression builds. */
export const MAX_STRING_LENGTH = 1024 * 1024;
/** Elements of an array an expression builds. */
export const MAX_ARRAY_LENGTH = 100_000;

function overLimit(what: string, size: number, limit: number): ExpressionError {
  return new ExpressionError(`the expression would build ${what} of ${size}; at most ${limit} are allowed`, 'EXPRESSION_LIMIT_EXCEEDED');
}

/** Refuses a string (about to be) built longer than MAX_STRING_LENGTH. */
export function checkLength(length: number): void {
  if (length > MAX_STRING_LENGTH) throw overLimit('a string', length, MAX_STRING_LENGTH);
}

/** Refuses an array (about to be) built longer than MAX_ARRAY_LENGTH. */
export function checkElements(length: number): void {
  if (length > MAX_ARRAY_LENGTH) throw overLimit('an array', length, MAX_ARRAY_LENGTH);
}

/** Returns a built string after checking its length (for operations whose size is not known in advance). */
export function built<T>(value: T): T {
  if (typeof value === 'string') checkLength(value.length);
  else if (Array.isArray(value)) checkElements(value.length);
  return value;
}

/** JavaScript truthiness: null, undefined, false, 0, NaN and "" are falsy; [] and {} are truthy. */
export function isTruthy(value: unknown): boolean {
  return Boolean(value);
}

export function toNumber(value: unknown, operator: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null) return 0;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  throw new ExpressionError(`operator "${operator}" needs numbers, got ${describe(value)}`);
}

/** How values read when embedded in text: strings as they are, objects as JSON, nullish as "". */
export function stringify(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** How `Array.prototype.concat` takes an argument: an array's elements, anything else as one element. */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** Strings joined once their total length is known to be within the limit. */
export function concatStrings(parts: string[]): string {
  checkLength(parts.reduce((total, part) => total + part.length, 0));
  return parts.join('');
}

export function concatArrays(parts: unknown[][]): unknown[] {
  checkElements(parts.reduce((total, part) => total + part.length, 0));
  return parts.flat(1);
}

/** `join` with the result's length checked as it is summed, before anything is built. */
export function joinChecked(items: unknown[], separator: string): string {
  const parts: string[] = [];
  let length = Math.max(0, items.length - 1) * separator.length;
  checkLength(length);
  for (const item of items) {
    const part = stringify(item);
    length += part.length;
    checkLength(length);
    parts.push(part);
  }
  return parts.join(separator);
}

export function optionalNumber(value: unknown): number | undefined {
  return value === undefined ? undefined : toNumber(value, 'argument');
}
