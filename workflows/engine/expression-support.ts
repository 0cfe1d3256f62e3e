/**
 * What validates runs: the forms the evaluator refuses whatever the data
 * (array literals, `~`, `|`, `this`, `a, b`, unknown functions, a method no
 * string or array has, `__proto__`…) are refused at publish, with the
 * evaluator's own message. Type errors and the like depend on the run's data
 * and stay run-time errors. test/engine/expression-support.test.ts checks
 * the two agree on generated expressions.
 */
import type jsep from 'jsep';
import { EVALUATOR_VOCABULARY as known } from './evaluate';

const cache = new WeakMap<jsep.Expression, string | null>();

/** The evaluator's message for the first form in the AST it never evaluates, or undefined. */
export function unsupportedIn(ast: jsep.Expression): string | undefined {
  let found = cache.get(ast);
  if (found === undefined) {
    found = firstUnsupported(ast) ?? null;
    cache.set(ast, found);
  }
  return found ?? undefined;
}

function firstUnsupported(root: jsep.Expression): string | undefined {
  // Iterative: parsed expressions are depth-bounded, but this walk needs no stack of its own either way.
  const stack: jsep.Expression[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'Literal':
      case 'Identifier':
        break;
      case 'MemberExpression': {
        const member = node as jsep.MemberExpression;
        const key = staticKey(member);
        if (key !== undefined && known.forbiddenKeys.has(key)) return `property "${key}" is not accessible`;
        stack.push(member.object);
        if (member.computed) stack.push(member.property);
        break;
      }
      case 'UnaryExpression': {
        const unary = node as jsep.UnaryExpression;
        if (!known.unaryOperators.has(unary.operator)) return `operator "${unary.operator}" is not supported`;
        stack.push(unary.argument);
        break;
      }
      case 'BinaryExpression': {
        const binary = node as jsep.BinaryExpression;
        if (!known.binaryOperators.has(binary.operator)) return `operator "${binary.operator}" is not supported`;
        stack.push(binary.left, binary.right);
        break;
      }
      case 'ConditionalExpression': {
        const conditional = node as jsep.ConditionalExpression;
        stack.push(conditional.test, conditional.consequent, conditional.alternate);
        break;
      }
      case 'CallExpression': {
        const call = node as jsep.CallExpression;
        const refused = calleeProblem(call.callee);
        if (refused) return refused;
        if (call.callee.type === 'MemberExpression') stack.push(call.callee);
        stack.push(...call.arguments);
        break;
      }
      case 'ArrayExpression':
        return 'array literals are not supported; keep lists in variables';
      default:
        return `"${node.type}" is not supported in expressions`;
    }
  }
  return undefined;
}

function calleeProblem(callee: jsep.Expression): string | undefined {
  if (callee.type === 'Identifier') {
    const name = (callee as jsep.Identifier).name;
    return known.functions.has(name) ? undefined : `unknown function "${name}()"`;
  }
  if (callee.type === 'MemberExpression') {
    const name = staticKey(callee as jsep.MemberExpression);
    if (name !== undefined && !known.methods.has(name) && !known.forbiddenKeys.has(name))
      return `method "${name}" is not available on strings or arrays (methods: ${[...known.methods].sort().join(', ')})`;
    return undefined;
  }
  return 'only named functions and string or array methods can be called';
}

/** `a.b` → b, `a['b']` → b, `a[0]` → 0; a computed key of any other form is known only when the run evaluates it. */
function staticKey(member: jsep.MemberExpression): string | undefined {
  if (!member.computed) return member.property.type === 'Identifier' ? (member.property as jsep.Identifier).name : undefined;
  const property = member.property;
  if (property.type !== 'Literal') return undefined;
  const value = (property as jsep.Literal).value;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
