/**
 * References are checked at publish: every `a.b.c` an expression reads must
 * start from a template root (./template-roots.ts), name a field that root
 * has, name a step that exists and has run when the reader runs, and a field
 * that step's plugin returns (its descriptor's closed `outputSchema`).
 *
 * Errors where a reference can never resolve (an unknown root or step,
 * `output` for `outputs`, a field the plugin does not return, a step that
 * only runs after its reader); warnings where it may not (a step upstream on
 * only some paths, one in a parallel branch, an input no trigger declares).
 * Each message names the reader, the reference and the likely fix.
 */
import type { DefinitionIssue, DefinitionWarning, WorkflowDefinition } from './definition';
import { analyzeReach } from './graph/reach';
import { hasOwn, isObject } from './normalize';
import { chainsOf, type Chain } from './reference-chains';
import { didYouMean } from './suggest';
import { ROOT_NAMES, templateRoot } from './template-roots';
import type { ParsedSite, ReaderSite } from './validate-expressions';
import { checkStepReference, type Warn } from './validate-step-references';

export { REFERENCE_MAY_NOT_RESOLVE } from './validate-step-references';
export const INPUT_UNDECLARED = 'INPUT_UNDECLARED';

/** Triggers whose payload is the run inputs as a caller declared them (`config.inputs`), or none (cron). */
const DECLARING_TRIGGERS = new Set(['manual', 'cron']);
const CRON_INPUTS = ['firedAt', 'schedule'];

export function checkReferences(
  def: WorkflowDefinition,
  parsed: readonly ParsedSite[],
  issues: DefinitionIssue[],
  warnings: DefinitionWarning[],
): void {
  const steps = def.steps;
  const ids = Object.keys(steps);
  const reach = analyzeReach(ids, graphEdges(def));
  const declaredInputs = declaredRunInputs(def);
  for (const { ast, source, path, site } of parsed) {
    const expression = source.trim();
    const error = (message: string) => issues.push({ path, message: `${readerText(site)} reads \`${expression}\`: ${message}` });
    const warn = (code: string, message: string) =>
      warnings.push({ code, path, message: `${readerText(site)} reads \`${expression}\`: ${message}` });
    const triggerConfig = site.kind === 'step' && steps[site.stepId]?.type === 'trigger';
    const chains = chainsOf(ast);
    // A step the expression tests (`steps.x.status`, `steps.x.outputs.y ?? …`) is read knowing it may not have run.
    const guardedSteps = new Set(
      chains
        .filter((chain) => chain.root === 'steps' && (chain.guarded || chain.names[1] === 'status'))
        .map((chain) => chain.names[0] ?? ''),
    );
    for (const chain of chains) {
      if (chain.root === 'undefined') continue;
      if (triggerConfig && chain.root !== 'vars' && chain.root !== 'secrets') {
        error(`a trigger's config is resolved when its alias is activated, where only vars.* and secrets.* exist`);
        continue;
      }
      if (!ROOT_NAMES.has(chain.root)) {
        error(`"${chain.root}" is not a template root${didYouMean(chain.root, ROOT_NAMES)} (roots: ${[...ROOT_NAMES].join(', ')})`);
        continue;
      }
      const first = chain.names[0];
      const fields = templateRoot(chain.root)?.fields;
      if (fields && first !== undefined && !hasOwn(fields, first)) {
        error(
          `${chain.root} has no field "${first}"${didYouMean(first, Object.keys(fields), (name) => `${chain.root}.${name}`)} ` +
            `(fields: ${Object.keys(fields).join(', ')})`,
        );
        continue;
      }
      if (chain.root === 'workflow' && first === 'inputs') checkRunInput(chain, declaredInputs, warn);
      if (chain.root === 'steps')
        checkStepReference(def, reach, site, chain, error, guardedSteps.has(chain.names[0] ?? '') ? () => {} : warn);
    }
  }
}

function readerText(site: ReaderSite): string {
  if (site.kind === 'step') return `step "${site.stepId}"`;
  if (site.kind === 'connection') return `the condition of a connection from "${site.from}"`;
  return site.kind === 'outputs' ? 'the workflow outputs' : 'a variable initialValue';
}

/** Connections between existing steps, and each step's fallback route (it runs after the step fails). */
function graphEdges(def: WorkflowDefinition): Array<{ from: string; to: string }> {
  const edges: Array<{ from: string; to: string }> = [];
  for (const connection of def.connections) {
    if (typeof connection.from === 'string' && typeof connection.to === 'string') edges.push({ from: connection.from, to: connection.to });
  }
  for (const [id, step] of Object.entries(def.steps)) {
    const fallback = isObject(step.errorHandling) ? step.errorHandling.fallbackStep : undefined;
    if (typeof fallback === 'string') edges.push({ from: id, to: fallback });
  }
  return edges.filter((edge) => hasOwn(def.steps, edge.from) && hasOwn(def.steps, edge.to));
}

/** The run inputs the definition declares, when every trigger's payload is those (manual, cron); else undefined. */
function declaredRunInputs(def: WorkflowDefinition): Set<string> | undefined {
  const names = new Set<string>(isObject(def.inputs) ? Object.keys(def.inputs) : []);
  for (const step of Object.values(def.steps)) {
    if (step.type !== 'trigger') continue;
    if (typeof step.pluginType !== 'string' || !DECLARING_TRIGGERS.has(step.pluginType)) return undefined;
    if (step.pluginType === 'manual' && isObject(step.config) && isObject(step.config.inputs))
      for (const name of Object.keys(step.config.inputs)) names.add(name);
  }
  if (names.size === 0) return undefined;
  // A cron tick's run inputs (executions/prepare-scheduled.ts).
  if (Object.values(def.steps).some((step) => step.type === 'trigger' && step.pluginType === 'cron'))
    for (const name of CRON_INPUTS) names.add(name);
  return names;
}

function checkRunInput(chain: Chain, declared: Set<string> | undefined, warn: Warn): void {
  const name = chain.names[1];
  if (declared === undefined || name === undefined || declared.has(name)) return;
  warn(
    INPUT_UNDECLARED,
    `no trigger declares the input "${name}"${didYouMean(name, declared, (candidate) => `workflow.inputs.${candidate}`)} ` +
      `(declared: ${[...declared].join(', ')}); a caller may still pass it, else it reads undefined`,
  );
}
