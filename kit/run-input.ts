/**
 * How a local run starts: its definition (given, or loaded from a file and validated as the API does), the
 * execution input the engine receives (the fired trigger, the inputs checked as the API's execute checks
 * them, the server's default limits and current engine rules), and the `vars` it reads.
 */
import { randomUUID } from 'node:crypto';
import {
  checkInputs,
  ENGINE_RULES,
  runLimitsFrom,
  validateDefinition as validateWithEngine,
  type RunLimits,
  type ExecutionInput,
  type TriggerInfo,
  type WorkflowDefinition,
} from '../workflows/engine';
import { DEFAULT_LIMITS } from '../config/limits';
import { requireValid } from './children';
import type { Clock } from './clock';
import { DefinitionInvalid, InputsInvalid } from './errors';
import { loadDefinition } from './load';
import type { ResolvedStub } from './stubs';
import type { RunOptions } from './run-types';

export function definitionOf(options: RunOptions, plugins: Record<string, ResolvedStub['descriptor']>): WorkflowDefinition {
  if (options.definition && options.file) throw new TypeError('runWorkflow takes a definition or a file, not both');
  if (options.file) {
    const loaded = loadDefinition(options.file, { plugins });
    if (!loaded.definition || loaded.errors.length > 0) throw new DefinitionInvalid(loaded.errors, options.file);
    return loaded.definition;
  }
  if (!options.definition) throw new TypeError('runWorkflow needs a definition or a file');
  return requireValid(options.definition, { plugins });
}

export interface Start {
  inputs: Record<string, unknown>;
  triggerStep?: string;
  triggerPort?: string;
  triggerPayload?: Record<string, unknown>;
  source?: TriggerInfo['source'];
  depth: number;
  rootExecutionId?: string;
  parentExecutionId?: string;
  correlationKey?: string;
  executionId?: string;
}

/** How a test's run starts: at the top (depth 0), with the trigger and inputs its options name. */
export function topLevelStart(options: RunOptions): Start {
  return {
    inputs: options.inputs ?? {},
    triggerStep: options.trigger,
    triggerPort: options.triggerPort,
    triggerPayload: options.triggerPayload,
    correlationKey: options.correlationKey,
    depth: 0,
  };
}

export function executionInput(
  definition: WorkflowDefinition,
  start: Start,
  clock: Clock,
  limits: Partial<RunLimits> = {},
): ExecutionInput {
  const triggers = Object.values(definition.steps).filter((step) => step.type === 'trigger');
  const fired = start.triggerStep
    ? definition.steps[start.triggerStep]
    : (triggers.find((step) => step.pluginType === 'manual') ?? triggers[0]);
  if (start.triggerStep && fired?.type !== 'trigger')
    throw new TypeError(`trigger "${start.triggerStep}" is not a trigger step of this workflow`);
  // A manual start is checked as the API's execute checks it: the definition's `inputs` and the manual trigger's
  // declarations (type and required; their JSON `schema` is checked by the API only). Children are not, as on the server.
  if (fired?.pluginType === 'manual' && start.source === undefined) {
    const errors = checkInputs({ ...objectOr(definition.inputs), ...objectOr(fired.config.inputs) }, start.inputs);
    if (errors.length > 0) throw new InputsInvalid(errors);
  }
  const source: TriggerInfo['source'] =
    start.source ?? (fired?.pluginType === 'cron' ? 'cron' : fired?.pluginType === 'webhook' ? 'webhook' : 'manual');
  const executionId = start.executionId ?? newExecutionId();
  return {
    executionId,
    organizationId: 'local',
    workflowId: definition.key ?? 'local',
    ...(definition.key ? { workflowKey: definition.key } : {}),
    revision: 1,
    definition,
    inputs: start.inputs,
    trigger: {
      ...(fired ? { stepId: fired.id } : {}),
      source,
      payload: start.triggerPayload ?? start.inputs,
      receivedAt: new Date(clock.now()).toISOString(),
      ...(start.triggerPort && start.triggerPort !== 'default' ? { port: start.triggerPort } : {}),
    },
    ...(start.correlationKey !== undefined ? { correlationKey: start.correlationKey } : {}),
    ...(start.parentExecutionId ? { parentExecutionId: start.parentExecutionId } : {}),
    ...(start.rootExecutionId ? { rootExecutionId: start.rootExecutionId } : {}),
    limits: { ...runLimitsFrom(DEFAULT_LIMITS), ...limits },
    depth: start.depth,
    // The rules a run started on the server now follows (a local run computes as a new run there does).
    engineRules: ENGINE_RULES,
  };
}

/** The `vars` the run reads: the given ones; with missingConfig `undefined`, the referenced names without a value read as undefined. */
export function varsFor(definition: WorkflowDefinition, options: RunOptions): Record<string, unknown> {
  const vars: Record<string, unknown> = { ...options.vars };
  if (options.missingConfig === 'undefined') {
    for (const reference of validateWithEngine(definition).references) {
      if (reference.kind === 'var' && !Object.hasOwn(vars, reference.name)) vars[reference.name] = undefined;
    }
  }
  return vars;
}

export function newExecutionId(): string {
  return `exec_local_${randomUUID().replace(/-/g, '')}`;
}

function objectOr(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
