/**
 * The nesting limit of request bodies (BODY_MAX_DEPTH). A parsed body nested
 * deeper than the limit is refused where bodies are read (body.ts), before
 * anything walks it recursively: JSON.stringify, validation, the engine and
 * PostgreSQL all recurse, and a body thousands of levels deep overflowed their
 * stacks (a 500). The walk here is iterative, so no depth can overflow it.
 */
import type { FieldError } from './errors';

/**
 * Where `value` first nests deeper than `maxDepth` levels (an object or array
 * is one level; the body itself is level 1), as a field error at the JSON
 * pointer of the first value past the limit; undefined when it does not.
 * A body that refers to itself (a YAML alias inside its own anchor) is
 * infinitely deep, and is refused too.
 */
export function bodyDepthIssue(value: unknown, maxDepth: number): FieldError | undefined {
  if (!isContainer(value) || !deeperThan(value, maxDepth)) return undefined;
  return { path: pathPastLimit(value, maxDepth), message: `is nested deeper than ${maxDepth} levels (BODY_MAX_DEPTH)` };
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * Whether the body nests deeper than `maxDepth`. One stack of (node, depth) pairs and
 * plain loops (`for…in` over parsed JSON, which has own keys only): no array per node,
 * so the walk costs a fraction of the parse it follows.
 */
function deeperThan(root: object, maxDepth: number): boolean {
  const stack: unknown[] = [root, 1];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const node = stack.pop() as Record<string, unknown>;
    if (depth > maxDepth) return true;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) if (isContainer(node[i])) stack.push(node[i], depth + 1);
    } else {
      for (const key in node) if (isContainer(node[key])) stack.push(node[key], depth + 1);
    }
  }
  return false;
}

/** Only for a body known to be too deep: the JSON pointer of the first container past the limit. */
function pathPastLimit(root: object, maxDepth: number): string {
  const stack: Array<{ node: object; depth: number; path: string }> = [{ node: root, depth: 1, path: '' }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (depth > maxDepth) return path;
    for (const [key, child] of Object.entries(node)) {
      if (isContainer(child))
        stack.push({ node: child, depth: depth + 1, path: `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
    }
  }
  return '';
}
