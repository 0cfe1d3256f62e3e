/**
 * The chains of names an expression reads from its roots (`steps.h.outputs.body` → root `steps`, names
 * `[h, outputs, body]`), each marked when it is read where a missing value is expected; what the reference
 * checks at publish (./validate-references.ts) walk.
 */
import type jsep from 'jsep';

/** One chain of names read from a root: `steps.h.outputs.body` → root steps, names [h, outputs, body]; undefined: computed. */
export interface Chain {
  root: string;
  names: Array<string | undefined>;
  /** Read where a missing value is expected: the left of `??` / `||`, a test (`a ? …`, `a && …`). */
  guarded?: boolean;
}

/** Every chain of names read from a root identifier in an AST (a method call's name is not a field). */
export function chainsOf(ast: jsep.Expression): Chain[] {
  const chains: Chain[] = [];
  const visit = (node: jsep.Expression, asCallee = false, guarded = false): void => {
    switch (node.type) {
      case 'Identifier':
        if (!asCallee) chains.push({ root: (node as jsep.Identifier).name, names: [], guarded });
        return;
      case 'MemberExpression': {
        const names: Array<string | undefined> = [];
        let current: jsep.Expression = node;
        while (current.type === 'MemberExpression') {
          const member = current as jsep.MemberExpression;
          names.unshift(staticName(member));
          if (member.computed) visit(member.property);
          current = member.object;
        }
        // `a.b.trim()`: `trim` is a method, not a field of `a.b`.
        if (asCallee) names.pop();
        if (current.type === 'Identifier') chains.push({ root: (current as jsep.Identifier).name, names: cutAtComputed(names), guarded });
        else visit(current, false, guarded);
        return;
      }
      case 'CallExpression': {
        const call = node as jsep.CallExpression;
        visit(call.callee, true, guarded);
        for (const argument of call.arguments) visit(argument, false, guarded);
        return;
      }
      case 'BinaryExpression': {
        const binary = node as jsep.BinaryExpression;
        visit(binary.left, false, guarded || ['??', '||', '&&'].includes(binary.operator));
        visit(binary.right, false, guarded);
        return;
      }
      case 'ConditionalExpression': {
        const conditional = node as jsep.ConditionalExpression;
        visit(conditional.test, false, true);
        visit(conditional.consequent, false, guarded);
        visit(conditional.alternate, false, guarded);
        return;
      }
      default: {
        const record = node as unknown as Record<string, unknown>;
        if (record.argument && typeof record.argument === 'object') visit(record.argument as jsep.Expression, false, guarded);
        for (const key of ['elements', 'body'])
          if (Array.isArray(record[key])) for (const child of record[key] as jsep.Expression[]) if (child) visit(child, false, guarded);
      }
    }
  };
  visit(ast);
  return chains;
}

/** Names after a computed one are relative to a value known only at run time: not checked. */
function cutAtComputed(names: Array<string | undefined>): Array<string | undefined> {
  const at = names.indexOf(undefined);
  return at < 0 ? names : [...names.slice(0, at), undefined];
}

function staticName(member: jsep.MemberExpression): string | undefined {
  if (!member.computed) return member.property.type === 'Identifier' ? (member.property as jsep.Identifier).name : undefined;
  const value = member.property.type === 'Literal' ? (member.property as jsep.Literal).value : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
