/**
 * A `steps.<id>…` reference checked at publish: the step exists, has the field read, has run when its
 * reader runs (an error when it never has, a warning when only on some paths or in a parallel branch), and
 * returns the output fields read (its plugin's closed `outputSchema`, or a forEach or loop's summary).
 */
import type { WorkflowDefinition } from './definition';
import type { Reach } from './graph/reach';
import { hasOwn, isObject } from './normalize';
import { lookupField, type OutputSchema } from './plugins/outputs';
import type { Chain } from './reference-chains';
import { didYouMean } from './suggest';
import { STEP_FIELDS } from './template-roots';
import type { ReaderSite } from './validate-expressions';
import { stepPlugin } from './validate-step';

export const REFERENCE_MAY_NOT_RESOLVE = 'REFERENCE_MAY_NOT_RESOLVE';

export type Report = (message: string) => void;
export type Warn = (code: string, message: string) => void;

export function checkStepReference(def: WorkflowDefinition, reach: Reach, site: ReaderSite, chain: Chain, error: Report, warn: Warn): void {
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
