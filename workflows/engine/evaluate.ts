/**
 * A small, whitelisted evaluator for the engine's expressions (engine-reference
 * §3). It walks the jsep AST itself: no `eval`, no `Function`, no access to
 * prototypes, and only the functions and string/array members listed in
 * ./expression-functions.ts (values, bounds and conversions: ./expression-values.ts).
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
import { ExpressionError, MAX_OPERATIONS, concatStrings, describe, isTruthy, stringify, toNumber } from './expression-values';
import { ARRAY_METHODS, FUNCTIONS, STRING_METHODS } from './expression-functions';

export { ExpressionError, MAX_ARRAY_LENGTH, MAX_OPERATIONS, MAX_STRING_LENGTH, isTruthy, stringify } from './expression-values';

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

let operations = 0;

/** Parses (with a small cache) and evaluates a raw expression against a scope. */
export function evaluateExpression(source: string, scope: EvaluationScope): unknown {
  // Evaluation is synchronous, so one counter serves every call in turn.
  operations = 0;
  return evaluateNode(parseCached(source), scope);
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

/** Own properties of plain data only; missing or nullish targets read as undefined. */
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
