/** One run of a workflow revision (id = the Temporal workflow id). */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TriggerInfo } from '../../workflows/engine';

/** How an execution runs another again: every step (`rerun`), or reusing the steps that completed (`retry`). */
export type RerunKind = 'rerun' | 'retry';

export type ExecutionStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled' | 'terminated';

@Entity({ name: 'executions' })
export class ExecutionEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  @Column({ name: 'workflow_key', type: 'text', nullable: true }) workflowKey!: string | null;
  @Column({ type: 'integer' }) revision!: number;
  @Column({ type: 'text', nullable: true }) alias!: string | null;
  @Column({ type: 'text' }) status!: ExecutionStatus;
  @Column({ type: 'jsonb' }) inputs!: Record<string, unknown>;
  @Column({ type: 'jsonb', nullable: true }) outputs!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) error!: Record<string, unknown> | null;
  @Column({ type: 'jsonb' }) trigger!: TriggerInfo;
  @Column({ name: 'correlation_key', type: 'text', nullable: true }) correlationKey!: string | null;
  @Column({ name: 'idempotency_key', type: 'text', nullable: true }) idempotencyKey!: string | null;
  @Column({ name: 'parent_execution_id', type: 'text', nullable: true }) parentExecutionId!: string | null;
  /** The execution this one runs again (POST …/rerun or …/retry), with how. */
  @Column({ name: 'rerun_of', type: 'text', nullable: true }) rerunOf!: string | null;
  @Column({ name: 'rerun_kind', type: 'text', nullable: true }) rerunKind!: RerunKind | null;
  @Column({ name: 'temporal_run_id', type: 'text', nullable: true }) temporalRunId!: string | null;
  @Column({ name: 'temporal_namespace', type: 'text' }) temporalNamespace!: string;
  /** The run's variables as of its last recorded step (null until then); read on its own (`/state`), never with the row. */
  @Column({ type: 'jsonb', nullable: true, select: false }) variables?: Record<string, unknown> | null;
  @Column({ name: 'vars_used', type: 'jsonb', nullable: true }) varsUsed!: Record<string, unknown> | null;
  @Column({ name: 'created_by', type: 'text', nullable: true }) createdBy!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  /** Set once the recovery runs of a failed execution were started (or it needed none). */
  @Column({ name: 'failure_dispatched_at', type: 'timestamptz', nullable: true }) failureDispatchedAt!: Date | null;
  /** On a root: the sub-workflow executions recorded below it at every depth, counted against the tree budget (0 elsewhere). */
  @Column({ type: 'integer' }) descendants!: number;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
