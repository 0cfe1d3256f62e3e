/** The `vars.*` an execution reads: found in its definition, resolved once at start (with a check of its declared `secrets:`). */
import { ApplicationFailure } from '@temporalio/workflow';
import { followsRule, secretBindings, varReferences, type ExecutionInput } from './engine';
import type { RunState } from './execution-handlers';
import { persistence } from './execution-persistence';

/** `vars.X` names referenced anywhere in the definition (resolved once, at start). */
export function referencedVars(input: ExecutionInput): string[] {
  const { steps, connections, outputs, variables } = input.definition;
  // Variables' initialValue templates are resolved at start, and may read vars.
  return varReferences([steps, connections, outputs, variables], { bareExpressions: true });
}

/**
 * Resolves the referenced variables by local activity. Variables that cannot be
 * read at all (the config store failing past its retries) fail the run before
 * any step, with the cause on the record. A variable without a value is no
 * error here: the step that reads it fails then.
 */
export async function resolveVarsOrFail(input: ExecutionInput, run: RunState, eventSeq: number): Promise<Record<string, unknown>> {
  const names = referencedVars(input);
  const secrets = [...new Set(Object.values(secretBindings(input.definition)))].sort();
  // Nothing to resolve: no local activity (one round trip fewer per run); runs under rules 1 made the call anyway.
  if (names.length === 0 && secrets.length === 0 && followsRule(input, 'vars-call-only-when-needed')) return {};
  try {
    return await persistence.resolveVars({
      executionId: input.executionId,
      organizationId: input.organizationId,
      workflowId: input.workflowId,
      names,
      secrets,
    });
  } catch (error) {
    // A local activity's ApplicationFailure may arrive wrapped (ActivityFailure.cause) or as itself.
    const thrown = error as { type?: string; message?: string; cause?: { type?: string; message?: string } };
    const cause = thrown.cause?.type ? thrown.cause : thrown.type ? thrown : thrown.cause;
    const failure = { type: cause?.type ?? 'CONFIG_ENTRY_UNRESOLVED', message: cause?.message ?? 'variables could not be resolved' };
    run.phase = 'failed';
    await persistence.finishExecution({
      executionId: input.executionId,
      organizationId: input.organizationId,
      status: 'failed',
      eventSeq,
      outputs: {},
      error: failure,
    });
    throw ApplicationFailure.nonRetryable(failure.message, failure.type);
  }
}
