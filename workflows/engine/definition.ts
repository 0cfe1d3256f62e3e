/**
 * The normalized workflow definition: camelCase keys, steps as a map keyed by
 * id, `dependsOn` expanded into connections, triggers rebuilt from trigger
 * steps. This is what revisions store and what the execution receives.
 */
export const STEP_TYPES = ['module', 'decider', 'trigger', 'passthrough', 'subworkflow', 'wait', 'observer'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** The plugin a step of these types runs when it names none. */
export const DEFAULT_PLUGIN_OF_TYPE: Readonly<Record<string, string>> = { wait: 'signal-wait', subworkflow: 'sub-workflow' };

export const JOIN_STRATEGIES = ['all', 'any', 'allSettled', 'count'] as const;
export type JoinStrategy = (typeof JOIN_STRATEGIES)[number];

export const STEP_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const WORKFLOW_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Ids that would collide with JavaScript object internals when used as map keys. */
export const RESERVED_STEP_IDS = new Set(['__proto__', 'constructor', 'prototype']);

export interface RetryPolicy {
  maxRetries?: number;
  maxAttempts?: number;
  backoff?: string;
  backoffStrategy?: string;
  initialInterval?: string | number;
  maxInterval?: string | number;
  jitter?: number;
  [key: string]: unknown;
}

export interface ErrorHandling {
  retryPolicy?: RetryPolicy;
  fallbackStep?: string;
  continueOnError?: boolean;
  [key: string]: unknown;
}

export interface StepDefinition {
  id: string;
  type: StepType;
  pluginType?: string;
  name?: string;
  description?: string;
  config: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  joinStrategy?: JoinStrategy;
  joinCount?: number;
  condition?: string | boolean;
  timeout?: string | number;
  errorHandling?: ErrorHandling;
  forEach?: Record<string, unknown>;
  loop?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  outputProjection?: string[];
  [key: string]: unknown;
}

export interface ConnectionDefinition {
  id: string;
  from: string;
  to: string;
  sourcePort: string;
  targetPort: string;
  condition?: string | boolean;
  label?: string;
  [key: string]: unknown;
}

export interface TriggerDefinition {
  id: string;
  pluginType: string;
  mode?: string;
  description?: string;
  config: Record<string, unknown>;
}

export interface WorkflowDefinition {
  name: string;
  key?: string;
  description?: string;
  path: string;
  nrn?: string;
  metadata?: Record<string, unknown>;
  semanticVersion?: string;
  releaseNotes?: string;
  inputs?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  /** Declared secrets: `{NAME: {}}`, or `{NAME: {key: "STORED"}}` to read another entry (names only). */
  secrets?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  steps: Record<string, StepDefinition>;
  connections: ConnectionDefinition[];
  triggers: TriggerDefinition[];
  [key: string]: unknown;
}

export interface DefinitionIssue {
  /** JSON pointer into the document the client sent. */
  path: string;
  message: string;
}

export interface DefinitionWarning extends DefinitionIssue {
  code: string;
}
