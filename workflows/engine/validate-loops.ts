/**
 * Publish warnings for the two loop watch-outs the compatible engine's validator names, where a definition
 * runs but likely computes less than its author meant:
 * - a step on a `split-in-batches` `done` edge that reads `$items`: it gets what the loop handed to `done`
 *   (the items sent round the loop, or what a per-item body gave back), not what a body that summarizes each
 *   batch computed; totals are read from a run variable the loop tail accumulates, or `totalProcessed`;
 * - a back-edge whose loop has no accumulator (a `set-variable` step): what each round computed is replaced by
 *   the next round's, and only the last round's outputs remain. A fetcher's `callback` loop in accumulate mode
 *   keeps its pages itself and is not warned about.
 */
import type { DefinitionWarning, WorkflowDefinition } from './definition';
import { buildTopology, type Edge, type Topology } from './graph/topology';
import { itemRootUses } from './item-scope';
import type { StepSource } from './normalize';
import { scriptProperties } from './plugins/descriptor';
import { readsGlobal } from './validate-items';
import { fieldPath, stepPlugin } from './validate-step';

export const DONE_READS_ITEMS = 'DONE_READS_ITEMS';
export const LOOP_WITHOUT_ACCUMULATOR = 'LOOP_WITHOUT_ACCUMULATOR';

export function loopWarnings(
  def: WorkflowDefinition,
  sources: Map<string, StepSource>,
  connectionPath: (index: number) => string,
): DefinitionWarning[] {
  const topology = buildTopology(def);
  const warnings: DefinitionWarning[] = [];
  const edges = Object.values(topology.edges);
  for (const edge of edges) {
    if (edge.kind === 'error' || edge.sourcePort !== 'done' || def.steps[edge.from]?.pluginType !== 'split-in-batches') continue;
    const source = sources.get(edge.to);
    const path = source && itemsReadAt(def, edge.to, source);
    if (path === undefined) continue;
    warnings.push({
      code: DONE_READS_ITEMS,
      path,
      message:
        `step "${edge.to}" reads $items on the done port of "${edge.from}": that is what the loop handed to done (the items sent ` +
        'round it, or what a per-item loop body gave back), not what a body that summarizes each batch computed. To total ' +
        "the body's results, accumulate them at the loop tail (a set-variable step with concat(variables.results, $items)) and " +
        `read variables.results; for a count, read steps.${edge.from}.outputs.totalProcessed`,
    });
  }
  for (const edge of edges) {
    if (edge.kind !== 'back' || keepsItsOwnPages(def, edge)) continue;
    const body = loopBody(topology, edge);
    if ([...body].some((id) => def.steps[id]?.pluginType === 'set-variable')) continue;
    const index = def.connections.findIndex((connection, n) => (connection.id || `c${n}`) === edge.id);
    warnings.push({
      code: LOOP_WITHOUT_ACCUMULATOR,
      path: index >= 0 ? connectionPath(index) : 'connections',
      message:
        `the loop from "${edge.from}" back to "${edge.to}" has no accumulator: each round's outputs replace the last round's, so ` +
        'only the last remain once it ends. To keep them all, add a set-variable step at the loop tail (value ' +
        'concat(variables.results, $items)) and read variables.results after the loop',
    });
  }
  return warnings;
}

/** Where the step reads `$items` (a template of its config or inputs, or its script's global), if it does. */
function itemsReadAt(def: WorkflowDefinition, stepId: string, source: StepSource): string | undefined {
  const step = def.steps[stepId];
  const plugin = stepPlugin(step);
  const use = itemRootUses(step, plugin).find((entry) => entry.root === '$items');
  if (use) return fieldPath(source, String(use.path[0]), ...use.path.slice(1));
  for (const name of scriptProperties(plugin)) {
    const code = step.config?.[name];
    if (typeof code === 'string' && readsGlobal(code, '$items')) return fieldPath(source, 'config', name);
  }
  return undefined;
}

/** A back-edge into a fetcher's `callback` port in accumulate mode: the fetcher collects every page itself. */
function keepsItsOwnPages(def: WorkflowDefinition, edge: Edge): boolean {
  const config = def.steps[edge.to]?.config;
  return edge.targetPort === 'callback' && config?.mode !== 'stream';
}

/** The steps of the loop a back-edge closes: reachable forward from its target and reaching its source (forward edges). */
function loopBody(topology: Topology, back: Edge): Set<string> {
  const walk = (start: string, next: (id: string) => string[]): Set<string> => {
    const seen = new Set<string>([start]);
    const queue = [start];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      for (const other of next(id)) {
        if (seen.has(other)) continue;
        seen.add(other);
        queue.push(other);
      }
    }
    return seen;
  };
  const along = (ids: string[], end: 'to' | 'from') =>
    ids
      .map((edgeId) => topology.edges[edgeId])
      .filter((edge) => edge.kind !== 'back')
      .map((edge) => edge[end]);
  const fromTarget = walk(back.to, (id) => along(topology.outgoing[id], 'to'));
  const toSource = walk(back.from, (id) => along(topology.incoming[id], 'from'));
  return new Set([...fromTarget].filter((id) => toSource.has(id)));
}
