/**
 * Tiny builders for workflow definitions in tests and benches: plain data in the shape
 * clients send, so a test reads as its graph (keep the ASCII sketch next to each use).
 *
 *   start ─▶ a ─▶ b            chain(trigger(), step('a', 'log', { message: 'x' }), step('b', 'no-op'))
 *   check ─true─▶ yes          connections('check:true->yes')
 *   collect ─▶ pages(callback) connections('collect->pages:callback')
 *   the whole document         doc([trigger(), step('a', 'no-op')], { edges: ['start->a'], variables: {} })
 *   trigger ─▶ work (log)      definition('Demo', { key: 'demo' })   (steps keyed by id, as the API tests send)
 *
 * Pure: no database, no Temporal (the engine lane uses them too).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { findPlugin, validateDefinition, type ExecutionInput, type PluginCatalog, type WorkflowDefinition } from '../../workflows/engine';

export type StepDoc = { id: string } & Record<string, unknown>;

/** A trigger step; `trigger()` is the manual `start` step most tests begin with. */
export function trigger(id = 'start', pluginType = 'manual', config: Record<string, unknown> = {}): StepDoc {
  return { id, type: 'trigger', pluginType, config };
}

/** A step of a plugin; its `type` is the plugin's kind (`module` when unknown), `extra` adds or overrides fields. */
export function step(id: string, pluginType: string, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): StepDoc {
  return { id, type: findPlugin(pluginType)?.kind ?? 'module', pluginType, config, ...extra };
}

/** Steps one after another: each after the first depends on the one before it. */
export function chain(...steps: StepDoc[]): StepDoc[] {
  return steps.map((s, i) => (i === 0 ? s : { ...s, dependsOn: [steps[i - 1].id] }));
}

/** Connections from edges written `a->b`, `a:port->b` (source port) or `a->b:port` (target port). */
export function connections(...edges: string[]): Array<{ from: string; to: string; sourcePort?: string; targetPort?: string }> {
  return edges.map((edge) => {
    const match = /^([\w-]+)(?::([\w-]+))?->([\w-]+)(?::([\w-]+))?$/.exec(edge);
    if (!match) throw new Error(`bad edge "${edge}"`);
    const [, from, sourcePort, to, targetPort] = match;
    return { from, to, ...(sourcePort ? { sourcePort } : {}), ...(targetPort ? { targetPort } : {}) };
  });
}

/**
 * A definition document as clients send it: `steps` in order, `edges` (written as for
 * `connections`) as its connections, and any other top-level field over the defaults
 * (`name: 'test'`, `path: '/test'`).
 */
export function doc(
  steps: Array<Record<string, unknown>>,
  fields: { edges?: string[] } & Record<string, unknown> = {},
): Record<string, unknown> {
  const { edges, ...rest } = fields;
  return { name: 'test', path: '/test', steps, ...(edges ? { connections: connections(...edges) } : {}), ...rest };
}

/**
 * The API tests' smallest definition, in the keyed form (steps by id): a manual trigger
 * ─▶ `work`, a log step; named `name`, `fields` adds or overrides top-level fields.
 */
export function definition(name = 'Demo', fields: Record<string, unknown> = {}, triggerId = 'trigger'): Record<string, unknown> {
  return {
    name,
    steps: {
      [triggerId]: { type: 'trigger', pluginType: 'manual' },
      work: { type: 'module', pluginType: 'log', config: { message: 'hello' } },
    },
    connections: [{ from: triggerId, to: 'work' }],
    ...fields,
  };
}

/** The normalized definition of `doc` (named `test` unless it says), failing with the validator's errors. */
export function validDefinition(doc: Record<string, unknown>, plugins?: PluginCatalog): WorkflowDefinition {
  // The same validator the API uses (with the operator plugins it loaded): what a test runs would also save.
  const validated = validateDefinition({ name: 'test', ...doc }, { plugins });
  assert.deepEqual(validated.errors, []);
  return validated.definition!;
}

export interface InputOptions {
  inputs?: Record<string, unknown>;
  executionId?: string;
  organizationId?: string;
  workflowId?: string;
  receivedAt?: string;
  /** Operator plugins the definition uses (validated and pinned as the API does). */
  plugins?: PluginCatalog;
}

/** The workflow input of a manual run of `doc` (validated), as the API builds it. */
export function executionInput(doc: Record<string, unknown>, options: InputOptions = {}): ExecutionInput {
  const inputs = options.inputs ?? {};
  return {
    executionId: options.executionId ?? `exec_${randomUUID().replace(/-/g, '')}`,
    organizationId: options.organizationId ?? '1',
    workflowId: options.workflowId ?? 'wf_test',
    revision: 1,
    definition: validDefinition(doc, options.plugins),
    inputs,
    trigger: { source: 'manual', payload: inputs, receivedAt: options.receivedAt ?? new Date().toISOString() },
  };
}
