/**
 * What the validator asks of a graph to know whether a step has run when
 * another reads it: reachability (is X upstream of R?) and dominance (does
 * every path from an entry step to R pass through X?). Dominators by the
 * Cooper–Harvey–Kennedy iteration over a virtual root feeding every step with
 * no incoming edge; cycles (back-edges) are allowed.
 */

export interface Reach {
  /** A path of one or more edges leads from `from` to `to` (`reaches(x, x)`: x is on a cycle). */
  reaches(from: string, to: string): boolean;
  /** Every path from an entry to `to` passes through `by` (false when `to` is unreachable from the entries). */
  dominates(by: string, to: string): boolean;
}

export function analyzeReach(ids: readonly string[], edges: ReadonlyArray<{ from: string; to: string }>): Reach {
  const index = new Map(ids.map((id, at) => [id, at + 1]));
  const count = ids.length + 1;
  const successors: number[][] = Array.from({ length: count }, () => []);
  const predecessors: number[][] = Array.from({ length: count }, () => []);
  for (const { from, to } of edges) {
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined || b === undefined) continue;
    successors[a].push(b);
    predecessors[b].push(a);
  }
  for (let node = 1; node < count; node += 1) {
    if (predecessors[node].length === 0) {
      successors[0].push(node);
      predecessors[node].push(0);
    }
  }

  const reachCache = new Map<number, Set<number>>();
  const reachableFrom = (start: number): Set<number> => {
    let seen = reachCache.get(start);
    if (seen) return seen;
    seen = new Set();
    const stack = [...successors[start]];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      stack.push(...successors[node]);
    }
    reachCache.set(start, seen);
    return seen;
  };

  const idom = dominatorTree(successors, predecessors);
  const { enter, leave } = treeIntervals(idom);
  return {
    reaches: (from, to) => {
      const a = index.get(from);
      const b = index.get(to);
      return a !== undefined && b !== undefined && reachableFrom(a).has(b);
    },
    dominates: (by, to) => {
      const a = index.get(by);
      const b = index.get(to);
      if (a === undefined || b === undefined || idom[a] === -1 || idom[b] === -1) return false;
      // `a` is an ancestor of `b` in the dominator tree: b's interval lies inside a's.
      return enter[a] <= enter[b] && leave[b] <= leave[a];
    },
  };
}

/** Entry and exit numbers of a depth-first walk of the dominator tree, so "dominates" is two comparisons. */
function treeIntervals(idom: number[]): { enter: Int32Array; leave: Int32Array } {
  const children: number[][] = idom.map(() => []);
  idom.forEach((parent, node) => {
    if (node !== 0 && parent !== -1) children[parent].push(node);
  });
  const enter = new Int32Array(idom.length).fill(-1);
  const leave = new Int32Array(idom.length).fill(-1);
  let clock = 0;
  const stack: Array<[number, number]> = [[0, 0]];
  enter[0] = clock++;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [node, next] = top;
    if (next < children[node].length) {
      top[1] += 1;
      const child = children[node][next];
      enter[child] = clock++;
      stack.push([child, 0]);
    } else {
      leave[node] = clock++;
      stack.pop();
    }
  }
  return { enter, leave };
}

/** Immediate dominators (node 0 is the root; -1: unreachable). */
function dominatorTree(successors: number[][], predecessors: number[][]): number[] {
  const count = successors.length;
  // Reverse postorder from the root, iteratively (a graph may be deep).
  const order: number[] = [];
  const visited = new Uint8Array(count);
  const stack: Array<[number, number]> = [[0, 0]];
  visited[0] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [node, next] = top;
    if (next < successors[node].length) {
      top[1] += 1;
      const child = successors[node][next];
      if (!visited[child]) {
        visited[child] = 1;
        stack.push([child, 0]);
      }
    } else {
      order.push(node);
      stack.pop();
    }
  }
  order.reverse();
  const rank = new Int32Array(count).fill(-1);
  order.forEach((node, at) => (rank[node] = at));
  const idom = new Array<number>(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (rank[a] > rank[b]) a = idom[a];
      while (rank[b] > rank[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const node of order) {
      if (node === 0) continue;
      let candidate = -1;
      for (const predecessor of predecessors[node]) {
        if (idom[predecessor] === -1) continue;
        candidate = candidate === -1 ? predecessor : intersect(predecessor, candidate);
      }
      if (candidate !== idom[node]) {
        idom[node] = candidate;
        changed = true;
      }
    }
  }
  return idom;
}
