/**
 * The workflow kit (`platform-api/kit`): load, normalize and validate
 * workflow files as the API does, and run them locally — with plugin stubs,
 * vars and secrets, signal answers and an instant clock — on the engine code
 * the worker runs. No Temporal, no database.
 */
export { loadDefinition, normalizeDefinition, type DefinitionError, type LoadedDefinition } from './load';
export {
  validateDefinition,
  type KitValidationOptions,
  type KitValidationResult,
  type ValidationIssue,
  type ValidationWarning,
} from './validate';
export { runWorkflow, type RunOptions, type RunResult, type StepResult } from './run';
export { replayExport, type ReplayOptions, type ReplayResult } from './replay';
export { readExport, ExportInvalid, type ExecutionExport } from './export-document';
export { recordedStubs } from './recorded-stubs';
export type { Divergence, DivergenceKind } from './replay-compare';
export type { StubContext, StubHandler, StubResult, StubSpec, Stubs } from './stubs';
export type { SignalAnswer, SignalResponder, SignalWait } from './local-effects';
export type { WorkflowSource } from './children';
export type { ClockMode } from './clock';
export { DefinitionInvalid, InputsInvalid, WorkflowRunFailed, formatDefinitionError, type RunFailureInfo } from './errors';
export type { EgressPolicy } from '../activities/egress/policy';
export type { LogEntryDraft as LogEntry, StepEvent, WorkflowDefinition } from '../workflows/engine';
