/**
 * The static shape of a definition's graph, computed once per execution:
 * every edge with its kind, and each step's incoming and outgoing edges.
 *
 * Edge kinds:
 * - `forward`: an ordinary edge; a step's join waits on its forward edges.
 * - `back`: closes a cycle (found by depth-first search from the entry
 *   steps); taking it starts a new round of the target's join.
 * - `error`: the route from a step to its `fallbackStep`. A declared edge
 *   from the step to that target is used as the route (so the common
 *   `condition: "false"` dummy edge works); otherwise a virtual one is added.
 */
import type { ConnectionDefinition, JoinStrategy, WorkflowDefinition } from '../definition';

export type EdgeKind = 'forward' | 'back' | 'error';

export interface Edge {
  id: string;
  from: string;
  to: string;
  sourcePort: string;
  targetPort: string;
  kind: EdgeKind;
  /** Raw expression gating the edge (undefined: always taken when its port is active). */
  condition?: string | boolean;
}

export interface Topology {
  /** Step ids in definition order, used to keep every decision deterministic. */
  order: string[];
  edges: Record<string, Edge>;
  incoming: Record<string, string[]>;
  outgoing: Record<string, string[]>;
  /** Steps with no forward incoming edge. */
  entries: string[];
  joins: Record<string, { strategy: JoinStrategy; count: number }>;
  continueOnError: Record<string, boolean>;
}

export const ERROR_PORT = '__error';

export function buildTopology(definition: WorkflowDefinition): Topology {
  const order = Object.keys(definition.steps);
  const edges: Record<string, Edge> = {};
  const incoming: Record<string, string[]> = Object.fromEntries(order.map((id) => [id, []]));
  const outgoing: Record<string, string[]> = Object.fromEntries(order.map((id) => [id, []]));

  const add = (edge: Edge) => {
    edges[edge.id] = edge;
    incoming[edge.to].push(edge.id);
    outgoing[edge.from].push(edge.id);
  };

  const fallbackOf = (stepId: string): string | undefined => {
    const target = definition.steps[stepId]?.errorHandling?.fallbackStep;
    return typeof target === 'string' && target in definition.steps ? target : undefined;
  };

  const routed = new Set<string>();
  definition.connections.forEach((connection: ConnectionDefinition, index) => {
    if (!(connection.from in definition.steps) || !(connection.to in definition.steps)) return;
    const id = connection.id || `c${index}`;
    const isRoute = fallbackOf(connection.from) === connection.to && !routed.has(connection.from);
    if (isRoute) routed.add(connection.from);
    add({
      id,
      from: connection.from,
      to: connection.to,
      sourcePort: isRoute ? ERROR_PORT : connection.sourcePort || 'default',
      targetPort: connection.targetPort || 'default',
      kind: isRoute ? 'error' : 'forward',
      condition: isRoute ? undefined : connection.condition,
    });
  });
  for (const stepId of order) {
    const target = fallbackOf(stepId);
    if (target && !routed.has(stepId)) {
      add({ id: `fallback:${stepId}`, from: stepId, to: target, sourcePort: ERROR_PORT, targetPort: 'default', kind: 'error' });
    }
  }

  markBackEdges(order, edges, outgoing, incoming);
  const entries = order.filter((id) => incoming[id].every((edgeId) => edges[edgeId].kind === 'back'));
  const joins = Object.fromEntries(
    order.map((id) => {
      const step = definition.steps[id];
      return [id, { strategy: step.joinStrategy ?? 'all', count: Math.max(1, step.joinCount ?? 1) }];
    }),
  );
  const continueOnError = Object.fromEntries(order.map((id) => [id, definition.steps[id].errorHandling?.continueOnError === true]));
  return { order, edges, incoming, outgoing, entries, joins, continueOnError };
}

/** Depth-first search from the entry steps (then any unvisited step): an edge to a step on the stack closes a cycle. */
function markBackEdges(
  order: string[],
  edges: Record<string, Edge>,
  outgoing: Record<string, string[]>,
  incoming: Record<string, string[]>,
): void {
  const state: Record<string, 'new' | 'open' | 'done'> = Object.fromEntries(order.map((id) => [id, 'new']));
  const roots = [...order.filter((id) => incoming[id].length === 0), ...order];
  for (const root of roots) {
    if (state[root] !== 'new') continue;
    // Iterative DFS keeps deep graphs off the call stack.
    const stack: Array<{ id: string; next: number }> = [{ id: root, next: 0 }];
    state[root] = 'open';
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const out = outgoing[frame.id];
      if (frame.next >= out.length) {
        state[frame.id] = 'done';
        stack.pop();
        continue;
      }
      const edge = edges[out[frame.next++]];
      if (state[edge.to] === 'open') {
        if (edge.kind === 'forward') edge.kind = 'back';
      } else if (state[edge.to] === 'new') {
        state[edge.to] = 'open';
        stack.push({ id: edge.to, next: 0 });
      }
    }
  }
}
