/** The errors the kit throws: a definition that does not validate, and a failed run (with `throwOnFailure`). */
import type { DefinitionError } from './load';

export class DefinitionInvalid extends Error {
  constructor(
    readonly errors: DefinitionError[],
    readonly file?: string,
  ) {
    const where = (error: DefinitionError) =>
      `${file ?? ''}${error.line !== undefined ? `${file ? ':' : 'line '}${error.line}:${error.column}` : ''}${file || error.line !== undefined ? ' ' : ''}${error.path ? `${error.path}: ` : ''}${error.message}`;
    super(`the workflow definition is invalid:\n${errors.map((error) => `  ${where(error)}`).join('\n')}`);
    this.name = 'DefinitionInvalid';
  }
}

export interface RunFailureInfo {
  type: string;
  message: string;
  stepId?: string;
}

export class WorkflowRunFailed extends Error {
  constructor(
    readonly error: RunFailureInfo,
    /** The whole result of the failed run (steps, logs, variables). */
    readonly result: unknown,
  ) {
    super(
      error.stepId ? `step "${error.stepId}" failed: ${error.message} (${error.type})` : `the run failed: ${error.message} (${error.type})`,
    );
    this.name = 'WorkflowRunFailed';
  }
}
