/**
 * A small, whitelisted evaluator for the engine's expressions (engine-reference
 * §3). It walks the jsep AST itself: no `eval`, no `Function`, no access to
 * prototypes, and only the functions and string/array members listed here.
 * Pure and deterministic, so it runs inside the Temporal workflow sandbox.
 *
 * Bounded: an evaluation visits at most MAX_OPERATIONS nodes, and no string
 * or array it builds may exceed MAX_STRING_LENGTH / MAX_ARRAY_LENGTH (sizes
 * are computed before the value is built where an operation multiplies
 * them), so a short expression cannot make megabytes.
 */
import type jsep from 'jsep';
import { scopeFollowsRule } from './engine-rules';
import { parseExpression } from './expressions';

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly code = 'EXPRESSION_ERROR',
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** Root names an expression may start from, mapped to their values. */
export type EvaluationScope = Readonly<Record<string, unknown>>;

const FORBIDDEN_KEYS = new Set([
  '__proto__',
  'prototype',
  'constructor',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** Nodes one evaluation may visit. */
export const MAX_OPERATIONS = 10_000;
/** Characters of a string an expression builds. */
export const MAX_STRING_LENGTH = 1024 * 1024;
/** Elements of an array an expression builds. */
export const MAX_ARRAY_LENGTH = 100_000;

let operations = 0;

/** Parses (with a small cache) and evaluates a raw expression against a scope. */
export function evaluateExpression(source: string, scope: EvaluationScope): unknown {
  // Evaluation is synchronous, so one counter serves every call in turn.
  operations = 0;
  return evaluateNode(parseCached(source), scope);
}

function overLimit(what: string, size: number, limit: number): ExpressionError {
  return new ExpressionError(`the expression would build ${what} of ${size}; at most ${limit} are allowed`, 'EXPRESSION_LIMIT_EXCEEDED');
}

/** Refuses a string (about to be) built longer than MAX_STRING_LENGTH. */
function checkLength(length: number): void {
  if (length > MAX_STRING_LENGTH) throw overLimit('a string', length, MAX_STRING_LENGTH);
}

/** Refuses an array (about to be) built longer than MAX_ARRAY_LENGTH. */
function checkElements(length: number): void {
  if (length > MAX_ARRAY_LENGTH) throw overLimit('an array', length, MAX_ARRAY_LENGTH);
}

/** Returns a built string after checking its length (for operations whose size is not known in advance). */
function built<T>(value: T): T {
  if (typeof value === 'string') checkLength(value.length);
  else if (Array.isArray(value)) checkElements(value.length);
  return value;
}

const astCache = new Map<string, jsep.Expression>();
const AST_CACHE_LIMIT = 2000;

function parseCached(source: string): jsep.Expression {
  let ast = astCache.get(source);
  if (!ast) {
    const parsed = parseExpression(source);
    if (!parsed.ast)
      throw new ExpressionError(
        `expression "${source.trim()}" does not parse: ${parsed.error ?? 'unknown error'}`,
        'EXPRESSION_PARSE_ERROR',
      );
    ast = parsed.ast;
    if (astCache.size >= AST_CACHE_LIMIT) astCache.clear();
    astCache.set(source, ast);
  }
  return ast;
}

/** JavaScript truthiness: null, undefined, false, 0, NaN and "" are falsy; [] and {} are truthy. */
export function isTruthy(value: unknown): boolean {
  return Boolean(value);
}

function evaluateNode(node: jsep.Expression, scope: EvaluationScope): unknown {
  if (++operations > MAX_OPERATIONS)
    throw new ExpressionError(`the expression takes more than ${MAX_OPERATIONS} operations`, 'EXPRESSION_LIMIT_EXCEEDED');
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (name === 'undefined') return undefined;
      if (!Object.hasOwn(scope, name)) throw new ExpressionError(`unknown name "${name}"`, 'EXPRESSION_UNKNOWN_ROOT');
      return scope[name];
    }
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      const target = evaluateNode(member.object, scope);
      const key = member.computed ? evaluateNode(member.property, scope) : (member.property as jsep.Identifier).name;
      if (isVarsRoot(member.object, scope) && typeof key === 'string' && !Object.hasOwn(target as object, key)) {
        // Only the steps that read a variable without a value fail, when they read it (not the whole run at start).
        throw new ExpressionError(`variable ${key} has no value for this workflow`, 'CONFIG_ENTRY_UNRESOLVED');
      }
      return readMember(target, key);
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      const value = evaluateNode(unary.argument, scope);
      switch (unary.operator) {
        case '!':
          return !isTruthy(value);
        case '-':
          return -toNumber(value, '-');
        case '+':
          return toNumber(value, '+');
        default:
          throw new ExpressionError(`operator "${unary.operator}" is not supported`);
      }
    }
    case 'BinaryExpression':
      return evaluateBinary(node as jsep.BinaryExpression, scope);
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return isTruthy(evaluateNode(conditional.test, scope))
        ? evaluateNode(conditional.consequent, scope)
        : evaluateNode(conditional.alternate, scope);
    }
    case 'CallExpression':
      return evaluateCall(node as jsep.CallExpression, scope);
    case 'ArrayExpression':
      throw new ExpressionError('array literals are not supported; keep lists in variables');
    default:
      throw new ExpressionError(`"${node.type}" is not supported in expressions`);
  }
}

function evaluateBinary(node: jsep.BinaryExpression, scope: EvaluationScope): unknown {
  // Short-circuit operators evaluate the right side only when needed, like JavaScript.
  if (node.operator === '&&') {
    const left = evaluateNode(node.left, scope);
    return isTruthy(left) ? evaluateNode(node.right, scope) : left;
  }
  if (node.operator === '||') {
    const left = evaluateNode(node.left, scope);
    return isTruthy(left) ? left : evaluateNode(node.right, scope);
  }
  if (node.operator === '??') {
    const left = evaluateNode(node.left, scope);
    return left ?? evaluateNode(node.right, scope);
  }
  const left = evaluateNode(node.left, scope);
  const right = evaluateNode(node.right, scope);
  switch (node.operator) {
    case '+':
      if (typeof left === 'string' || typeof right === 'string') return concatStrings([stringify(left), stringify(right)]);
      return toNumber(left, '+') + toNumber(right, '+');
    case '-':
      return toNumber(left, '-') - toNumber(right, '-');
    case '*':
      return toNumber(left, '*') * toNumber(right, '*');
    case '/':
      return toNumber(left, '/') / toNumber(right, '/');
    case '%':
      return toNumber(left, '%') % toNumber(right, '%');
    // `==` is strict except that null and undefined are equal: predictable, and what `case` matching uses.
    case '==':
      return looselyNull(left, right) || left === right;
    case '!=':
      return !(looselyNull(left, right) || left === right);
    case '===':
      return left === right;
    case '!==':
      return left !== right;
    // A missing side makes an ordering comparison false, as the compatible engine documents (`steps.x.outputs.count
    // >= 3` on a step that produced no count is a condition not met); runs of older rules read null as 0.
    case '<':
      return !missingSide(left, right, scope) && compare(left, right, '<') < 0;
    case '<=':
      return !missingSide(left, right, scope) && compare(left, right, '<=') <= 0;
    case '>':
      return !missingSide(left, right, scope) && compare(left, right, '>') > 0;
    case '>=':
      return !missingSide(left, right, scope) && compare(left, right, '>=') >= 0;
    default:
      throw new ExpressionError(`operator "${node.operator}" is not supported`);
  }
}

function missingSide(left: unknown, right: unknown, scope: EvaluationScope): boolean {
  return (
    (left === null || left === undefined || right === null || right === undefined) &&
    scopeFollowsRule(scope, 'ordering-with-missing-is-false')
  );
}

function looselyNull(left: unknown, right: unknown): boolean {
  return (left === null || left === undefined) && (right === null || right === undefined);
}

function compare(left: unknown, right: unknown, operator: string): number {
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  const a = toNumber(left, operator);
  const b = toNumber(right, operator);
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
}

function toNumber(value: unknown, operator: string): number {
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

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Own properties of plain data only; missing or nullish targets read as undefined. */
/** `vars` as the root of a member expression, with the values resolved at start in scope. */
function isVarsRoot(node: jsep.Expression, scope: EvaluationScope): boolean {
  return (
    node.type === 'Identifier' &&
    (node as jsep.Identifier).name === 'vars' &&
    Object.hasOwn(scope, 'vars') &&
    typeof scope.vars === 'object' &&
    scope.vars !== null
  );
}

function readMember(target: unknown, key: unknown): unknown {
  if (target === null || target === undefined) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number')
    throw new ExpressionError(`property keys must be strings or numbers, got ${describe(key)}`);
  const name = String(key);
  if (FORBIDDEN_KEYS.has(name)) throw new ExpressionError(`property "${name}" is not accessible`);
  if (typeof target === 'string' || Array.isArray(target)) {
    if (name === 'length') return target.length;
    if (/^\d+$/.test(name)) return target[Number(name)];
    return undefined;
  }
  if (typeof target === 'object') return Object.hasOwn(target, name) ? (target as Record<string, unknown>)[name] : undefined;
  return undefined;
}

type Fn = (args: unknown[]) => unknown;

const FUNCTIONS: Record<string, Fn> = {
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
const STRING_METHODS: Record<string, (self: string, args: unknown[]) => unknown> = {
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
const ARRAY_METHODS: Record<string, (self: unknown[], args: unknown[]) => unknown> = {
  includes: (a, [x]) => a.includes(x),
  indexOf: (a, [x]) => a.indexOf(x),
  join: (a, [x]) => joinChecked(a, x === undefined ? ',' : stringify(x)),
  slice: (a, [s, e]) => a.slice(optionalNumber(s), optionalNumber(e)),
  concat: (a, args) => concatArrays([a, ...args.map(asList)]),
};

/** How `Array.prototype.concat` takes an argument: an array's elements, anything else as one element. */
function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** Strings joined once their total length is known to be within the limit. */
function concatStrings(parts: string[]): string {
  checkLength(parts.reduce((total, part) => total + part.length, 0));
  return parts.join('');
}

function concatArrays(parts: unknown[][]): unknown[] {
  checkElements(parts.reduce((total, part) => total + part.length, 0));
  return parts.flat(1);
}

/** `join` with the result's length checked as it is summed, before anything is built. */
function joinChecked(items: unknown[], separator: string): string {
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

function optionalNumber(value: unknown): number | undefined {
  return value === undefined ? undefined : toNumber(value, 'argument');
}

function evaluateCall(node: jsep.CallExpression, scope: EvaluationScope): unknown {
  const args = () => node.arguments.map((argument) => evaluateNode(argument, scope));
  if (node.callee.type === 'Identifier') {
    const name = (node.callee as jsep.Identifier).name;
    const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (!fn) throw new ExpressionError(`unknown function "${name}()"`);
    return fn(args());
  }
  if (node.callee.type === 'MemberExpression') {
    const callee = node.callee as jsep.MemberExpression;
    const self = evaluateNode(callee.object, scope);
    const name = callee.computed ? evaluateNode(callee.property, scope) : (callee.property as jsep.Identifier).name;
    if (typeof name === 'string') {
      if (typeof self === 'string' && Object.hasOwn(STRING_METHODS, name)) return STRING_METHODS[name](self, args());
      if (Array.isArray(self) && Object.hasOwn(ARRAY_METHODS, name)) return ARRAY_METHODS[name](self, args());
    }
    throw new ExpressionError(`method "${String(name)}" is not available on ${describe(self)}`);
  }
  throw new ExpressionError('only named functions and string or array methods can be called');
}

/** What the evaluator knows by name, for the validator to refuse the rest at publish (./expression-support.ts). */
export const EVALUATOR_VOCABULARY = {
  functions: new Set(Object.keys(FUNCTIONS)),
  methods: new Set([...Object.keys(STRING_METHODS), ...Object.keys(ARRAY_METHODS)]),
  unaryOperators: new Set(['!', '-', '+']),
  binaryOperators: new Set(['&&', '||', '??', '+', '-', '*', '/', '%', '==', '!=', '===', '!==', '<', '<=', '>', '>=']),
  forbiddenKeys: FORBIDDEN_KEYS as ReadonlySet<string>,
};
