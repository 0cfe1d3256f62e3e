/**
 * Checks the inputs of a manual start (the API's execute, the kit's
 * runWorkflow) against the `config.inputs` the manual trigger step declares
 * (`{name: {type, required}}`): one error per offending input, so a run form
 * can mark every field at once. Undeclared inputs pass through.
 */
import type { DefinitionIssue, WorkflowDefinition } from './definition';

const TYPE_CHECKS: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => typeof value === 'number' && Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
  object: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
};

/** The manual trigger step an API start fires (the first one, as the graph runner picks it). */
export function manualTrigger(definition: WorkflowDefinition): { id: string; inputs: Record<string, unknown> } | undefined {
  const step = Object.values(definition.steps).find((candidate) => candidate.type === 'trigger' && candidate.pluginType === 'manual');
  if (!step) return undefined;
  const declared = step.config.inputs;
  const inputs = typeof declared === 'object' && declared !== null && !Array.isArray(declared) ? (declared as Record<string, unknown>) : {};
  return { id: step.id, inputs };
}

export function checkInputs(declared: Record<string, unknown>, inputs: Record<string, unknown>): DefinitionIssue[] {
  const errors: DefinitionIssue[] = [];
  for (const [name, spec] of Object.entries(declared)) {
    const { type, required } = (typeof spec === 'object' && spec !== null ? spec : {}) as { type?: unknown; required?: unknown };
    const pointer = `/inputs/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const value = Object.prototype.hasOwnProperty.call(inputs, name) ? inputs[name] : undefined;
    if (value === undefined || value === null) {
      if (required === true) errors.push({ path: pointer, message: 'is required' });
      continue;
    }
    // Own keys only: a type named like an Object.prototype member must not find a "check" there.
    const check = typeof type === 'string' && Object.hasOwn(TYPE_CHECKS, type) ? TYPE_CHECKS[type] : undefined;
    if (check && !check(value)) errors.push({ path: pointer, message: `must be of type ${String(type)}` });
  }
  return errors;
}
