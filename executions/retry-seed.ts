/**
 * What a retry of a failed execution takes over from it (ExecutionInput.reuse, workflows/engine/runtime/reuse.ts):
 * the latest record of each step that completed there, read whole (items stored apart included, never the capped
 * records the API shows), and its run variables as last recorded.
 */
import type { EntityManager } from 'typeorm';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../db/repositories/execution-step-repository';
import type { ReusedSteps, StepRecord } from '../workflows/engine';

export async function retrySeed(manager: EntityManager, executionId: string): Promise<ReusedSteps> {
  const [rows, variables] = await Promise.all([
    new ExecutionStepRepository(manager).listOf(executionId),
    new ExecutionRepository(manager).variablesOf(executionId),
  ]);
  const latest: Record<string, StepRecord> = {};
  for (const row of rows) if (!latest[row.stepId] || latest[row.stepId].run <= row.run) latest[row.stepId] = row.record;
  const steps = Object.fromEntries(Object.entries(latest).filter(([, record]) => record.status === 'completed'));
  return { from: executionId, steps, variables };
}
