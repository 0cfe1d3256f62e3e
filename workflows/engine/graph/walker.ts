/**
 * The graph walker: a pure state machine over a topology. The caller (the
 * Temporal workflow, or a test) runs the steps the walker activates and
 * reports each outcome with `settle`; the walker settles that step's outgoing
 * edges, evaluates joins and answers which steps are ready next.
 *
 * Guarantees (engine-reference §0):
 * - every edge ends taken, failed or skipped, and skips propagate
 *   (dead-path elimination), so no join waits forever;
 * - one step may be fed by a success path and a failure path;
 * - a back-edge starts a new round of its target;
 * - a step runs at most `MAX_STEP_RUNS` times (`LOOP_LIMIT_EXCEEDED`).
 *
 * The state is plain data, so it survives continue-as-new and answers queries.
 */
import type { Edge, Topology } from './topology';

export const MAX_STEP_RUNS = 1000;

export type Item = Record<string, unknown>;
export type EdgeState = 'pending' | 'taken' | 'failed' | 'skipped';

export interface StepOutcome {
  status: 'completed' | 'failed' | 'skipped';
  /** Items per active output port (completed steps). A port absent here is not active. */
  ports?: Record<string, Item[]>;
  /** Items the failed step received; they travel on its error route. */
  inputItems?: Item[];
}

export interface Activation {
  stepId: string;
  /** Concatenated items of the edges that fed this run ([{}] when none carried any). */
  items: Item[];
  /** Run number of this step, starting at 1. */
  run: number;
  /** Edges (by id) that fed this run, with how they settled. */
  via: Record<string, EdgeState>;
}

export interface Transition {
  ready: Activation[];
  /** Steps skipped by dead-path elimination during this transition. */
  skipped: string[];
  /** Set when the execution must fail. */
  failure?: { stepId: string; code: 'STEP_FAILED' | 'LOOP_LIMIT_EXCEEDED'; message: string };
}

interface Round {
  edges: Record<string, { state: EdgeState; items: Item[] }>;
  fired: boolean;
}

export interface WalkerState {
  rounds: Record<string, Round>;
  runs: Record<string, number>;
  running: string[];
  edgeStates: Record<string, EdgeState>;
}

/** Decides a connection condition once its source has completed. */
export type EdgeCondition = (edge: Edge) => boolean;

export function createWalkerState(topology: Topology): WalkerState {
  const state: WalkerState = { rounds: {}, runs: {}, running: [], edgeStates: {} };
  for (const stepId of topology.order) {
    state.runs[stepId] = 0;
    state.rounds[stepId] = freshRound(topology, stepId);
  }
  for (const edgeId of Object.keys(topology.edges)) state.edgeStates[edgeId] = 'pending';
  return state;
}

function freshRound(topology: Topology, stepId: string): Round {
  const edges: Round['edges'] = {};
  for (const edgeId of topology.incoming[stepId]) {
    if (topology.edges[edgeId].kind !== 'back') edges[edgeId] = { state: 'pending', items: [] };
  }
  return { edges, fired: false };
}

/**
 * Starts the walk: entry steps in `starts` run with their items; every other
 * entry step (an untriggered trigger, say) is skipped and the skip propagates.
 */
export function begin(topology: Topology, state: WalkerState, starts: Record<string, Item[]>, condition: EdgeCondition): Transition {
  const transition: Transition = { ready: [], skipped: [] };
  for (const stepId of topology.entries) {
    if (Object.hasOwn(starts, stepId)) activate(topology, state, stepId, starts[stepId], {}, transition);
  }
  for (const stepId of topology.entries) {
    if (Object.hasOwn(starts, stepId)) continue;
    transition.skipped.push(stepId);
    settleInto(topology, state, stepId, { status: 'skipped' }, condition, transition);
  }
  return transition;
}

/** Reports the outcome of a running step (or skips a step whose condition was false). */
export function settle(topology: Topology, state: WalkerState, stepId: string, outcome: StepOutcome, condition: EdgeCondition): Transition {
  const transition: Transition = { ready: [], skipped: [] };
  settleInto(topology, state, stepId, outcome, condition, transition);
  return transition;
}

/** True when nothing runs and nothing is ready: the walk is over. */
export function isFinished(state: WalkerState): boolean {
  return state.running.length === 0;
}

/**
 * Settles a step's outgoing edges, and the edges of every step whose path
 * dies as a result (dead-path elimination). Iterative: arrivals wait on an
 * explicit stack, pushed so they are handled in the order recursion would
 * take (a dead step's edges before its siblings'), which keeps a long chain
 * of skipped steps off the call stack.
 */
function settleInto(
  topology: Topology,
  state: WalkerState,
  stepId: string,
  outcome: StepOutcome,
  condition: EdgeCondition,
  transition: Transition,
): void {
  const pending: Mark[] = [];
  const push = (marks: Mark[]) => {
    for (let index = marks.length - 1; index >= 0; index--) pending.push(marks[index]);
  };
  push(marksOf(topology, state, stepId, outcome, condition, transition));
  while (pending.length > 0 && !transition.failure) {
    const [edge, edgeState, items] = pending.pop()!;
    state.edgeStates[edge.id] = edgeState;
    const dead = arrive(topology, state, edge, edgeState, items, transition);
    if (dead !== undefined) {
      transition.skipped.push(dead);
      push(marksOf(topology, state, dead, { status: 'skipped' }, condition, transition));
    }
  }
}

type Mark = [Edge, EdgeState, Item[]];

/** How a settled step's outgoing edges end; a failure without a route fails the walk (no marks then). */
function marksOf(
  topology: Topology,
  state: WalkerState,
  stepId: string,
  outcome: StepOutcome,
  condition: EdgeCondition,
  transition: Transition,
): Mark[] {
  state.running = state.running.filter((id) => id !== stepId);
  const outgoing = topology.outgoing[stepId].map((edgeId) => topology.edges[edgeId]);
  if (outcome.status === 'completed') {
    return outgoing.map((edge): Mark => {
      const items = edge.kind === 'error' ? undefined : outcome.ports?.[edge.sourcePort];
      return items !== undefined && passes(edge, condition) ? [edge, 'taken', items] : [edge, 'skipped', []];
    });
  }
  if (outcome.status === 'failed') {
    if (outgoing.some((edge) => edge.kind === 'error'))
      return outgoing.map((edge): Mark => (edge.kind === 'error' ? [edge, 'failed', outcome.inputItems ?? []] : [edge, 'skipped', []]));
    if (topology.continueOnError[stepId]) return outgoing.map((edge): Mark => [edge, 'failed', []]);
    transition.failure ??= { stepId, code: 'STEP_FAILED', message: `step "${stepId}" failed` };
    return [];
  }
  return outgoing.map((edge): Mark => [edge, 'skipped', []]);
}

function passes(edge: Edge, condition: EdgeCondition): boolean {
  if (edge.condition === undefined || edge.condition === true) return true;
  if (edge.condition === false) return false;
  return condition(edge);
}

/** Records an edge's arrival at its target; returns the target when its path died (it must be skipped). */
function arrive(
  topology: Topology,
  state: WalkerState,
  edge: Edge,
  edgeState: EdgeState,
  items: Item[],
  transition: Transition,
): string | undefined {
  const target = edge.to;
  if (edge.kind === 'back') {
    // A back-edge starts a new round of its target on its own; a skipped one changes nothing.
    if (edgeState !== 'skipped') activate(topology, state, target, items, { [edge.id]: edgeState }, transition);
    return undefined;
  }
  let round = state.rounds[target];
  const slot = round.edges[edge.id];
  if (slot.state !== 'pending') {
    // The same edge settles again before the round closed (its source ran twice): close this round first.
    state.rounds[target] = round = freshRound(topology, target);
  }
  round.edges[edge.id] = { state: edgeState, items };
  return evaluateJoin(topology, state, target, transition);
}

/** Fires the step when its join is satisfied; returns it when nothing (or too little) arrived and nothing else can. */
function evaluateJoin(topology: Topology, state: WalkerState, stepId: string, transition: Transition): string | undefined {
  const round = state.rounds[stepId];
  const slots = Object.entries(round.edges);
  const arrived = slots.filter(([, slot]) => slot.state === 'taken' || slot.state === 'failed');
  const allSettled = slots.every(([, slot]) => slot.state !== 'pending');
  const { strategy, count } = topology.joins[stepId];

  if (!round.fired) {
    const needed = strategy === 'any' ? 1 : strategy === 'count' ? count : Infinity;
    const ready = needed === Infinity ? allSettled && arrived.length > 0 : arrived.length >= needed;
    if (ready) {
      round.fired = true;
      const via = Object.fromEntries(arrived.map(([edgeId, slot]) => [edgeId, slot.state]));
      activate(
        topology,
        state,
        stepId,
        arrived.flatMap(([, slot]) => slot.items),
        via,
        transition,
      );
    } else if (allSettled) {
      // Dead path: nothing (or too little) arrived and nothing else can.
      state.rounds[stepId] = freshRound(topology, stepId);
      return stepId;
    }
  }
  if (round.fired && allSettled) state.rounds[stepId] = freshRound(topology, stepId);
  return undefined;
}

function activate(
  topology: Topology,
  state: WalkerState,
  stepId: string,
  items: Item[],
  via: Record<string, EdgeState>,
  transition: Transition,
): void {
  const run = (state.runs[stepId] ?? 0) + 1;
  if (run > MAX_STEP_RUNS) {
    transition.failure ??= { stepId, code: 'LOOP_LIMIT_EXCEEDED', message: `step "${stepId}" would run more than ${MAX_STEP_RUNS} times` };
    return;
  }
  state.runs[stepId] = run;
  state.running.push(stepId);
  transition.ready.push({ stepId, items: items.length > 0 ? items : [{}], run, via });
  // Keep the order of ready steps independent of arrival order, for determinism and readable tests.
  transition.ready.sort((a, b) => topology.order.indexOf(a.stepId) - topology.order.indexOf(b.stepId));
}
