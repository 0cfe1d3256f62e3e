/**
 * Steps 1 and 2 of the graph layout (./layout.ts): back edges (loops) turned around by one depth-first walk,
 * so the rest works on a DAG, then each node's rank by longest path from the sources (triggers come first).
 * Pure: no DOM.
 */

/** The graph as a DAG (vertices by index): which edges were reversed, its edges both ways, ranks and topological order. */
export interface RankedGraph {
  /** `from:to` of each back edge, reversed in the DAG. */
  reversed: Set<string>;
  dagOut: number[][];
  dagIn: number[][];
  rank: Int32Array;
  /** The nodes in topological order (Kahn's queue). */
  queue: number[];
}

/** Ranks `n` nodes joined by `pairs` (layout edges, once per ordered pair). */
export function rankGraph(n: number, pairs: Map<string, { from: number; to: number }>): RankedGraph {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const { from, to } of pairs.values()) out[from].push(to);

  // 1. Back edges, found by one iterative depth-first walk (sources first), are reversed.
  const reversed = new Set<string>();
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const indegree = new Uint32Array(n);
  for (const { to } of pairs.values()) indegree[to]++;
  const starts = [...Array(n).keys()].sort((a, b) => (indegree[a] === 0 ? 0 : 1) - (indegree[b] === 0 ? 0 : 1));
  for (const start of starts) {
    if (state[start] !== 0) continue;
    const stack: Array<[number, number]> = [[start, 0]];
    state[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1]++;
        const w = out[v][i];
        if (state[w] === 1) reversed.add(`${v}:${w}`);
        else if (state[w] === 0) {
          state[w] = 1;
          stack.push([w, 0]);
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  const dagOut: number[][] = Array.from({ length: n }, () => []);
  const dagIn: number[][] = Array.from({ length: n }, () => []);
  for (const { from, to } of pairs.values()) {
    const [a, b] = reversed.has(`${from}:${to}`) ? [to, from] : [from, to];
    if (dagOut[a].includes(b)) continue;
    dagOut[a].push(b);
    dagIn[b].push(a);
  }

  // 2. Longest-path ranks in topological order (Kahn).
  const rank = new Int32Array(n);
  const remaining = Int32Array.from(dagIn, (ins) => ins.length);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (remaining[v] === 0) queue.push(v);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const w of dagOut[v]) {
      rank[w] = Math.max(rank[w], rank[v] + 1);
      if (--remaining[w] === 0) queue.push(w);
    }
  }
  // A node that feeds only later ranks moves right next to its first consumer (no long lead-in edge), triggers excepted.
  for (let head = queue.length - 1; head >= 0; head--) {
    const v = queue[head];
    if (dagIn[v].length === 0 || dagOut[v].length === 0) continue;
    const nearest = Math.min(...dagOut[v].map((w) => rank[w])) - 1;
    if (nearest > rank[v]) rank[v] = nearest;
  }
  return { reversed, dagOut, dagIn, rank, queue };
}
