/**
 * The engine's one door: everything outside workflows/engine/ (the workflow,
 * activities, the API, the database stores, tests, benchmarks) imports the
 * engine from here. Pure and deterministic all the way down: no Node
 * built-ins, no I/O, so the workflow bundle may import it too.
 */

// Definitions: schema, normalization, validation, durations and cron.
export * from './definition';
export * from './durations';
export { cronError, minimumIntervalSeconds } from './cron';
export { normalizeDefinition, normalizeFolderPath } from './normalize';
export { validateDefinition, type ValidationOptions, type ValidationResult } from './validate';
export { checkInputs, manualTrigger } from './run-inputs';
export { handRunInputs, handRunPayload, handRunTrigger, triggerSteps, type HandRun, type TriggerStep } from './hand-run';
export { ACCEPTED_FIELDS, KEY_IGNORED } from './validate-ignored';
export {
  flowControlIssues,
  flowPolicyOf,
  renderFlowKey,
  MAX_FLOW_KEY_LENGTH,
  type FlowKeyScope,
  type FlowPolicy,
  type OnLimit,
} from './flow-control';
export { CODE_RETURNS_ARRAY } from './validate-code-result';
export { SETTING_SHADOWED } from './settings-from-inputs';
export { createLimiter } from './runtime/concurrency';
export { truncateUtf8, utf8Length } from './runtime/sizes';
export {
  DEFINITION_LIMIT_SETTINGS,
  RUN_LIMIT_SETTINGS,
  definitionBytesIssue,
  runLimitsFrom,
  runLimitsOf,
  type DefinitionLimits,
  type RunLimits,
} from './limits';
export { EXECUTION_WORKFLOW_TYPE, ENGINE_VERSION, TRIGGER_LIFECYCLE_WORKFLOW_TYPE } from './workflow-types';

// Plugins described as data, registered in one place; the inline plugins' signal names.
export {
  PLUGINS,
  buildPluginRegistry,
  codeExecDescriptor,
  findPlugin,
  httpRequestDescriptor,
  inlinePluginFor,
  outputPortsOf,
  paginatedFetchDescriptor,
  describePlugin,
  isBuiltInPlugin,
  isClosedObject,
  isCompatibleVersion,
  isSemver,
  pinnedPluginOf,
  MAX_TRIGGER_STATE_BYTES,
  toJsonSchema,
  typeText,
  withPluginCatalog,
  PINNED_PLUGINS_KEY,
  TWO_PHASE_WAIT_SETTINGS,
  type OutputSchema,
  type PinnedPlugin,
  type PluginCatalog,
  type PluginDescriptor,
  type PublicPluginDescriptor,
  type RegisteredPlugin,
  type TriggerLifecycleRequest,
  type TriggerLifecycleResult,
} from './plugins';
export { webhookSignalName } from './inline/webhook-wait';
export { RUN_SOURCES, STEP_FIELDS, TEMPLATE_ROOTS, type TemplateRoot } from './template-roots';
export { INPUT_UNDECLARED, REFERENCE_MAY_NOT_RESOLVE } from './validate-references';

// Expressions and templates.
export { collectReferences, parseExpression, templateErrors, templateSources, type ConfigKind, type ConfigReference } from './expressions';
export { EVALUATOR_VOCABULARY, ExpressionError, evaluateExpression, isTruthy, type EvaluationScope } from './evaluate';
export {
  applyDeferred,
  deferredSecretNames,
  resolveTemplates,
  scopeForDeferred,
  SECRET_MASK,
  type CallValues,
  type DeferredTemplate,
} from './templates';
export { SCRIPT_TEMPLATE_IDIOM, planScript, type ScriptPlan, type ScriptPlanning, type ScriptSlot } from './script-templates';

// The graph and its walk.
export { buildTopology, type Edge, type Topology } from './graph/topology';
export {
  MAX_STEP_RUNS,
  begin,
  createWalkerState,
  settle,
  type Activation,
  type StepOutcome,
  type Transition,
  type WalkerState,
} from './graph/walker';

// The execution runtime: what a run receives, records and asks of its host.
export { startExecution, type ExecutionOutcome, type ExecutionRun, type RunOptions } from './runtime/graph-runner';
export { readPath } from './runtime/paths';
export { lastStepTail, type LastStepEnd, type LastStepTail } from './runtime/last-step-end';
export { renamingBindings, secretBindings } from './secret-bindings';
export { varReferences } from './var-references';
export { NON_RETRYABLE_ERROR_TYPES } from './runtime/retry';
export { RECORDED_ATTEMPTS_MAX, RECORDED_CONFIG_MAX_BYTES } from './runtime/attempts';
export { engineRuleTable, followsRule, type EngineRule } from './engine-rules';
export {
  ENGINE_RULES,
  PLUGIN_ATTEMPT_DETAIL,
  PLUGIN_LOGS_DETAIL,
  type ActivityCall,
  type ChildRequest,
  type ChildResult,
  type ContinuedRun,
  type ExecutionInput,
  type Item,
  type LogEntryDraft,
  type PluginResult,
  type ReusedSteps,
  type RuntimeEffects,
  type ScheduledStart,
  type StepEvent,
  type StepAttempt,
  type StepRecord,
  type TriggerInfo,
  type WaitRequest,
  type WaitResult,
  type WaitAnswer,
  type WaitAnswerGiven,
} from './runtime/types';
