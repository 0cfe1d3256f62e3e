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

function settleInto(
  topology: Topology,
  state: WalkerState,
  stepId: string,
  outcome: StepOutcome,
  condition: EdgeCondition,
  transition: Transition,
): void {
  state.running = state.running.filter((id) => id !== stepId);
  const outgoing = topology.outgoing[stepId].map((edgeId) => topology.edges[edgeId]);
  const marks: Array<[Edge, EdgeState, Item[]]> = [];

  if (outcome.status === 'completed') {
    for (const edge of outgoing) {
      const items = edge.kind === 'error' ? undefined : outcome.ports?.[edge.sourcePort];
      marks.push(items !== undefined && passes(edge, condition) ? [edge, 'taken', items] : [edge, 'skipped', []]);
    }
  } else if (outcome.status === 'failed') {
    const routes = outgoing.filter((edge) => edge.kind === 'error');
    if (routes.length > 0) {
      for (const edge of outgoing) marks.push(edge.kind === 'error' ? [edge, 'failed', outcome.inputItems ?? []] : [edge, 'skipped', []]);
    } else if (topology.continueOnError[stepId]) {
      for (const edge of outgoing) marks.push([edge, 'failed', []]);
    } else {
      transition.failure ??= { stepId, code: 'STEP_FAILED', message: `step "${stepId}" failed` };
      return;
    }
  } else {
    for (const edge of outgoing) marks.push([edge, 'skipped', []]);
  }

  for (const [edge, edgeState, items] of marks) {
    state.edgeStates[edge.id] = edgeState;
    arrive(topology, state, edge, edgeState, items, condition, transition);
    if (transition.failure) return;
  }
}

function passes(edge: Edge, condition: EdgeCondition): boolean {
  if (edge.condition === undefined || edge.condition === true) return true;
  if (edge.condition === false) return false;
  return condition(edge);
}

function arrive(
  topology: Topology,
  state: WalkerState,
  edge: Edge,
  edgeState: EdgeState,
  items: Item[],
  condition: EdgeCondition,
  transition: Transition,
): void {
  const target = edge.to;
  if (edge.kind === 'back') {
    // A back-edge starts a new round of its target on its own; a skipped one changes nothing.
    if (edgeState !== 'skipped') activate(topology, state, target, items, { [edge.id]: edgeState }, transition);
    return;
  }
  let round = state.rounds[target];
  const slot = round.edges[edge.id];
  if (slot.state !== 'pending') {
    // The same edge settles again before the round closed (its source ran twice): close this round first.
    state.rounds[target] = round = freshRound(topology, target);
  }
  round.edges[edge.id] = { state: edgeState, items };
  evaluateJoin(topology, state, target, condition, transition);
}

function evaluateJoin(topology: Topology, state: WalkerState, stepId: string, condition: EdgeCondition, transition: Transition): void {
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
      transition.skipped.push(stepId);
      settleInto(topology, state, stepId, { status: 'skipped' }, condition, transition);
      return;
    }
  }
  if (round.fired && allSettled) state.rounds[stepId] = freshRound(topology, stepId);
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
