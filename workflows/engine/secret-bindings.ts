/**
 * The definition's `secrets:` declarations. `{NAME: {}}` declares a secret the
 * run needs; `{NAME: {key: "STORED"}}` also binds it: `secrets.NAME` reads the
 * config entry `STORED`. Names only: no secret value is ever here.
 */
import type { WorkflowDefinition } from './definition';

/** Declared name → name of the stored config entry, for every declaration (a plain declaration binds to itself). */
export function secretBindings(definition: Pick<WorkflowDefinition, 'secrets'>): Record<string, string> {
  const bindings: Record<string, string> = {};
  const declared = definition.secrets;
  if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) return bindings;
  for (const [name, spec] of Object.entries(declared)) {
    const key = spec !== null && typeof spec === 'object' ? (spec as { key?: unknown }).key : undefined;
    Object.defineProperty(bindings, name, { value: typeof key === 'string' ? key : name, enumerable: true, writable: true });
  }
  return bindings;
}

/** Only the bindings that rename (what an activity needs to load the right entries); undefined when there are none. */
export function renamingBindings(definition: Pick<WorkflowDefinition, 'secrets'>): Record<string, string> | undefined {
  const renaming = Object.entries(secretBindings(definition)).filter(([name, stored]) => name !== stored);
  return renaming.length > 0 ? Object.fromEntries(renaming) : undefined;
}
