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
import type jsep from 'jsep';
import type { DefinitionIssue, DefinitionWarning, WorkflowDefinition } from './definition';
import { analyzeReach, type Reach } from './graph/reach';
import { hasOwn, isObject } from './normalize';
import { lookupField, type OutputSchema } from './plugins/outputs';
import { didYouMean } from './suggest';
import { ROOT_NAMES, STEP_FIELDS, templateRoot } from './template-roots';
import type { ParsedSite, ReaderSite } from './validate-expressions';
import { stepPlugin } from './validate-step';

export const REFERENCE_MAY_NOT_RESOLVE = 'REFERENCE_MAY_NOT_RESOLVE';
export const INPUT_UNDECLARED = 'INPUT_UNDECLARED';

/** One chain of names read from a root: `steps.h.outputs.body` → root steps, names [h, outputs, body]; undefined: computed. */
interface Chain {
  root: string;
  names: Array<string | undefined>;
  /** Read where a missing value is expected: the left of `??` / `||`, a test (`a ? …`, `a && …`). */
  guarded?: boolean;
}

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

type Report = (message: string) => void;
type Warn = (code: string, message: string) => void;

function checkStepReference(def: WorkflowDefinition, reach: Reach, site: ReaderSite, chain: Chain, error: Report, warn: Warn): void {
  const [id, part, ...rest] = chain.names;
  if (id === undefined) return;
  if (!hasOwn(def.steps, id)) {
    error(`there is no step "${id}"${didYouMean(id, Object.keys(def.steps), (name) => `steps.${name}`)}`);
    return;
  }
  if (part !== undefined && !hasOwn(STEP_FIELDS, part)) {
    error(
      `a step has no "${part}"${didYouMean(part, Object.keys(STEP_FIELDS), (name) => `steps.${id}.${name}`)} ` +
        `(fields: ${Object.keys(STEP_FIELDS).join(', ')})`,
    );
    return;
  }
  if (!checkOrder(def, reach, site, id, error, warn)) return;
  // A step reading itself (a loop's `while`, a cycle) sees its plugin's previous outputs, not the loop's summary: not checked.
  const self = site.kind === 'step' ? site.stepId : undefined;
  if (part === 'outputs' && id !== self) checkOutputFields(def, id, rest, error);
}

/** Whether step `id` has run when `site` reads it; reports when it has not (false: an error was reported). */
function checkOrder(def: WorkflowDefinition, reach: Reach, site: ReaderSite, id: string, error: Report, warn: Warn): boolean {
  if (site.kind === 'outputs') return true;
  if (site.kind === 'variables') {
    error(`variables are seeded when the run starts, before any step has run`);
    return false;
  }
  const reader = site.kind === 'step' ? site.stepId : site.from;
  if (id === reader) {
    // A connection's condition reads its source after it ran; a step reads its own outputs of a previous round.
    if (site.kind === 'connection' || reach.reaches(id, id) || def.steps[id].loop !== undefined) return true;
    error(`step "${id}" has no outputs while it runs (it is not on a cycle, so it has not run before); read an upstream step`);
    return false;
  }
  // Dominance (every path to the reader passes the step) is the common case and the cheap test: try it first.
  if (reach.dominates(id, reader)) return true;
  if (reach.reaches(id, reader)) {
    warn(
      REFERENCE_MAY_NOT_RESOLVE,
      `step "${id}" is upstream on only some of the paths to "${reader}" (a branch not taken, another trigger): ` +
        `when it has not run the reference reads undefined; guard it (\`steps.${id}.status == 'completed'\`) or read a step every path passes`,
    );
    return true;
  }
  if (reach.reaches(reader, id) && !reach.reaches(reader, reader)) {
    error(`step "${id}" runs after "${reader}" (it is downstream), so it has not run yet; connect it upstream or read another step`);
    return false;
  }
  warn(
    REFERENCE_MAY_NOT_RESOLVE,
    `step "${id}" is not upstream of "${reader}" (a parallel branch), so it may not have run yet: connect it upstream (dependsOn) to wait for it`,
  );
  return true;
}

/** The fields read below `steps.<id>.outputs`, against the closed schema of what the step returns. */
function checkOutputFields(def: WorkflowDefinition, id: string, names: Array<string | undefined>, error: Report): void {
  let schema: OutputSchema | undefined = stepOutputSchema(def, id);
  let at = `steps.${id}.outputs`;
  for (const name of names) {
    if (name === undefined || schema === undefined) return;
    const found = lookupField(schema, name);
    if (found.kind === 'open') return;
    if (found.kind === 'absent') {
      const what = stepOutputOwner(def, id);
      error(
        `${what} returns no "${name}"${didYouMean(name, found.names, (candidate) => `${at}.${candidate}`)}` +
          (found.names.length > 0 ? ` (${at} has ${found.names.join(', ')})` : ` (${at} is always empty)`),
      );
      return;
    }
    schema = found.schema;
    at = `${at}.${name}`;
  }
}

const ITERATION_OUTPUTS: OutputSchema = {
  type: 'object',
  properties: { items: { type: 'array' }, count: { type: 'integer' }, failed: { type: 'integer' } },
  additionalProperties: false,
};

/** What a step's outputs hold when it is known: a forEach or loop's summary, else its plugin's declared outputs. */
function stepOutputSchema(def: WorkflowDefinition, id: string): OutputSchema | undefined {
  const step = def.steps[id];
  if (step.loop !== undefined) return ITERATION_OUTPUTS;
  if (step.forEach !== undefined) {
    // A reduce adds the accumulator's last value as `result`.
    if (!isObject(step.forEach) || step.forEach.reduce === undefined) return ITERATION_OUTPUTS;
    return { ...ITERATION_OUTPUTS, properties: { ...ITERATION_OUTPUTS.properties, result: {} } };
  }
  if (step.type === 'passthrough') return undefined;
  const plugin = stepPlugin(step);
  // A two-phase wait's output also carries the wait's fields and the signal payload's keys: open, whatever it declares.
  return plugin?.twoPhaseWait ? undefined : plugin?.outputSchema;
}

function stepOutputOwner(def: WorkflowDefinition, id: string): string {
  const step = def.steps[id];
  if (step.forEach !== undefined) return `step "${id}" (a forEach)`;
  if (step.loop !== undefined) return `step "${id}" (a loop)`;
  return `step "${id}" (${stepPlugin(step)?.name ?? step.type})`;
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
