/**
 * The latest record of one run of one step, keyed by (execution, step, run) so a retried write changes nothing.
 * Stored compact (execution-step-repository.ts): what the columns say is left out of `record`, and large items
 * are named by `itemsHash` (execution_step_payloads); the repository's reads give the whole record back.
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { StepRecord } from '../../workflows/engine';

@Entity({ name: 'execution_steps' })
export class ExecutionStepEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ name: 'step_id', type: 'text' }) stepId!: string;
  @PrimaryColumn({ type: 'integer' }) run!: number;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb' }) record!: StepRecord;
  /** The `execution_step_payloads` row holding the record's items (null: they are in `record`). */
  @Column({ name: 'items_hash', type: 'bytea', nullable: true, select: false }) itemsHash?: Buffer | null;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
}
