/**
 * A publish warning for a `code-exec` step whose code visibly returns an
 * array without saying what it becomes (`returns`). Such an array is one
 * output, `{result: [...]}`, as the compatible engine documents; this
 * project used to make it the step's items, so a definition written for
 * that behaviour learns at publish that it needs `returns: items` (and one
 * written for the compatible engine silences the warning with
 * `returns: output`). "Visibly": a top-level `return` (not one inside a
 * function) of an array literal, of `Array.from(…)`/`Array.of(…)`, or of a
 * `.map`, `.filter` or `.flatMap` call, awaited or not.
 */
import { parseJs } from './js-parser';
import type { DefinitionWarning, WorkflowDefinition } from './definition';
import { isObject, type StepSource } from './normalize';
import { planScript } from './script-templates';
import { fieldPath } from './validate-step';

export const CODE_RETURNS_ARRAY = 'CODE_EXEC_RETURNS_ARRAY';

/**
 * Writes `returns: output` into every published `code-exec` step that says nothing, so that the
 * revision states the meaning it was published under. A revision stored before `returns`
 * existed has no such key, and the activity keeps its meaning then: a returned array is the
 * step's items, as it was when that revision was published (nothing changes meaning silently).
 */
export function stampCodeResults(def: WorkflowDefinition): void {
  for (const step of Object.values(def.steps))
    if (step.pluginType === 'code-exec' && isObject(step.config) && step.config.returns === undefined) step.config.returns = 'output';
}

type AnyNode = { type: string } & Record<string, unknown>;

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassDeclaration', 'ClassExpression']);
const ARRAY_METHODS = new Set(['map', 'filter', 'flatMap']);
const MAX_NODES = 50_000;

/** The warning for each code-exec step without `returns` whose code visibly returns an array. */
export function codeResultWarnings(def: WorkflowDefinition, sources: Map<string, StepSource>): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  for (const [id, source] of sources) {
    const step = def.steps[id];
    if (step.pluginType !== 'code-exec' || !isObject(step.config) || step.config.returns !== undefined) continue;
    if (typeof step.config.code !== 'string' || !visiblyReturnsArray(step.config.code)) continue;
    warnings.push({
      code: CODE_RETURNS_ARRAY,
      path: fieldPath(source, 'config', 'code'),
      message:
        `the code of step "${id}" returns an array: it becomes one output, {result: [...]} (as the compatible engine does). ` +
        'To make each element an item of the step, write returns: items in its config; to keep one output, returns: output',
    });
  }
  return warnings;
}

/** Whether the code has a top-level `return` whose value is visibly an array. False for code that does not parse. */
export function visiblyReturnsArray(code: string): boolean {
  const { plan } = planScript(code);
  if (!plan) return false;
  let program: AnyNode;
  try {
    program = parseJs(plan.source, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
    }) as unknown as AnyNode;
  } catch {
    return false;
  }
  // Iterative walk (a deep script cannot overflow the stack), bounded in nodes, never into functions or classes.
  const pending: unknown[] = [program];
  for (let seen = 0; pending.length > 0 && seen < MAX_NODES; seen += 1) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...(node as unknown[]));
      continue;
    }
    if (!isNode(node) || FUNCTIONS.has(node.type)) continue;
    if (node.type === 'ReturnStatement') {
      if (isArrayValue(node.argument)) return true;
      continue;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'type' && child !== null && typeof child === 'object') pending.push(child);
  }
  return false;
}

function isNode(value: unknown): value is AnyNode {
  return value !== null && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string';
}

function isArrayValue(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (node.type === 'AwaitExpression' || node.type === 'ParenthesizedExpression') return isArrayValue(node.argument ?? node.expression);
  if (node.type === 'ArrayExpression') return true;
  if (node.type !== 'CallExpression' || !isNode(node.callee) || node.callee.type !== 'MemberExpression') return false;
  const { object, property, computed } = node.callee;
  if (computed || !isNode(property) || property.type !== 'Identifier') return false;
  const name = property.name as string;
  if (ARRAY_METHODS.has(name)) return true;
  return (name === 'from' || name === 'of') && isNode(object) && object.type === 'Identifier' && object.name === 'Array';
}
