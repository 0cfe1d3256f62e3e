/**
 * The functions and the string and array methods an expression may call (./evaluate.ts), each checking its
 * arguments and bounding what it builds; the validator refuses any other name at publish.
 */
import {
  ExpressionError,
  asList,
  built,
  concatArrays,
  concatStrings,
  describe,
  joinChecked,
  optionalNumber,
  stringify,
  toNumber,
} from './expression-values';

export type Fn = (args: unknown[]) => unknown;

export const FUNCTIONS: Record<string, Fn> = {
  len: ([value]) => {
    if (typeof value === 'string' || Array.isArray(value)) return value.length;
    if (value !== null && typeof value === 'object') return Object.keys(value).length;
    if (value === null || value === undefined) return 0;
    throw new ExpressionError(`len() needs a string, array or object, got ${describe(value)}`);
  },
  contains: ([haystack, needle]) => {
    if (typeof haystack === 'string') return typeof needle === 'string' && haystack.includes(needle);
    if (Array.isArray(haystack)) return haystack.some((item) => item === needle);
    if (haystack === null || haystack === undefined) return false;
    if (typeof haystack === 'object') return typeof needle === 'string' && Object.hasOwn(haystack, needle);
    throw new ExpressionError(`contains() needs a string, array or object, got ${describe(haystack)}`);
  },
  concat: (args) => {
    if (args.every((arg) => Array.isArray(arg) || arg === null || arg === undefined)) {
      return concatArrays(args.map((arg) => (Array.isArray(arg) ? (arg as unknown[]) : [])));
    }
    if (Array.isArray(args[0])) return concatArrays([args[0] as unknown[], ...args.slice(1).map(asList)]);
    return concatStrings(args.map(stringify));
  },
  keys: ([value]) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []),
  string: ([value]) => built(stringify(value)),
  number: ([value]) => toNumber(value, 'number()'),
  json: ([value]) => built(JSON.stringify(value ?? null)),
  lower: ([value]) => stringify(value).toLowerCase(),
  upper: ([value]) => stringify(value).toUpperCase(),
  trim: ([value]) => stringify(value).trim(),
};

/** Methods callable on strings and arrays; each checks its receiver. */
export const STRING_METHODS: Record<string, (self: string, args: unknown[]) => unknown> = {
  trim: (s) => s.trim(),
  trimStart: (s) => s.trimStart(),
  trimEnd: (s) => s.trimEnd(),
  toLowerCase: (s) => s.toLowerCase(),
  toUpperCase: (s) => s.toUpperCase(),
  startsWith: (s, [x]) => s.startsWith(stringify(x)),
  endsWith: (s, [x]) => s.endsWith(stringify(x)),
  includes: (s, [x]) => s.includes(stringify(x)),
  indexOf: (s, [x]) => s.indexOf(stringify(x)),
  split: (s, [x]) => built(s.split(stringify(x))),
  slice: (s, [a, b]) => s.slice(optionalNumber(a), optionalNumber(b)),
  substring: (s, [a, b]) => s.substring(optionalNumber(a) ?? 0, optionalNumber(b)),
  replace: (s, [a, b]) => joinChecked(s.split(stringify(a)), stringify(b)),
  padStart: (s, [n, x]) => s.padStart(Math.min(optionalNumber(n) ?? 0, 10_000), x === undefined ? ' ' : stringify(x)),
};
export const ARRAY_METHODS: Record<string, (self: unknown[], args: unknown[]) => unknown> = {
  includes: (a, [x]) => a.includes(x),
  indexOf: (a, [x]) => a.indexOf(x),
  join: (a, [x]) => joinChecked(a, x === undefined ? ',' : stringify(x)),
  slice: (a, [s, e]) => a.slice(optionalNumber(s), optionalNumber(e)),
  concat: (a, args) => concatArrays([a, ...args.map(asList)]),
};
