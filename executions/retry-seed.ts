/**
 * What a retry of a failed execution takes over from it (ExecutionInput.reuse, workflows/engine/runtime/reuse.ts):
 * the latest record of each step that completed there, read whole (items stored apart included, never the capped
 * records the API shows).
 */
import type { EntityManager } from 'typeorm';
import { ExecutionStepRepository } from '../db/repositories/execution-step-repository';
import type { ReusedSteps, StepRecord } from '../workflows/engine';

export async function retrySeed(manager: EntityManager, executionId: string): Promise<ReusedSteps> {
  const rows = await new ExecutionStepRepository(manager).listOf(executionId);
  const latest: Record<string, StepRecord> = {};
  for (const row of rows) if (!latest[row.stepId] || latest[row.stepId].run <= row.run) latest[row.stepId] = row.record;
  // Steps that ran more than once are not reused (workflows/engine/runtime/reuse.ts): their records stay out of the input.
  const steps = Object.fromEntries(Object.entries(latest).filter(([, record]) => record.status === 'completed' && record.run === 1));
  return { from: executionId, steps };
}
