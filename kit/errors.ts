/** The errors the kit throws: a definition that does not validate, and a failed run (with `throwOnFailure`). */
import type { DefinitionError } from './load';

/** `file:line:col pointer: message` (the pointer too, so that "is required" says what is). */
export function formatDefinitionError(error: DefinitionError, file?: string): string {
  const position = error.line !== undefined ? `${error.line}:${error.column}` : undefined;
  const where = [file, position].filter((part) => part !== undefined).join(':');
  return `${where ? `${where} ` : ''}${error.path ? `${error.path}: ` : ''}${error.message}`;
}

export class DefinitionInvalid extends Error {
  constructor(
    readonly errors: DefinitionError[],
    readonly file?: string,
  ) {
    super(`the workflow definition is invalid:\n${errors.map((error) => `  ${formatDefinitionError(error, file)}`).join('\n')}`);
    this.name = 'DefinitionInvalid';
  }
}

/** The inputs of a run do not match what its manual trigger declares (the API answers 400 inputs-invalid). */
export class InputsInvalid extends Error {
  constructor(readonly errors: Array<{ path: string; message: string }>) {
    super(
      `the inputs do not match the manual trigger's declarations:\n${errors.map((error) => `  ${error.path}: ${error.message}`).join('\n')}`,
    );
    this.name = 'InputsInvalid';
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
