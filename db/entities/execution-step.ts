/** The latest record of one run of one step, keyed by (execution, step, run) so a retried write changes nothing. */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { StepRecord } from '../../workflows/engine';

@Entity({ name: 'execution_steps' })
export class ExecutionStepEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ name: 'step_id', type: 'text' }) stepId!: string;
  @PrimaryColumn({ type: 'integer' }) run!: number;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb' }) record!: StepRecord;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
}
