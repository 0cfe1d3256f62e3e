/** One run of a workflow revision (id = the Temporal workflow id). */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TriggerInfo } from '../../workflows/engine';

/** How an execution runs another again: every step (`rerun`), or reusing the steps that completed (`retry`). */
export type RerunKind = 'rerun' | 'retry';

/** What the open-runs sweep last saw of a run in Temporal, when it was not well (executions/check-open-runs.ts). */
export interface RunHealth {
  /** The run's workflow task fails on every attempt: the run makes no progress until that is fixed. */
  workflowTaskFailing: true;
  /** Attempts of the failing workflow task so far. */
  attempts: number;
  /** When the first failing attempt was scheduled (ISO). */
  since: string;
  /** The failure's message as Temporal recorded it (its first failure), and its cause. */
  message: string;
  cause?: string;
  /** When the sweep saw it (ISO). */
  checkedAt: string;
}

/** `queued`: recorded under a flow-control key, waiting for its slot or its time (no Temporal workflow yet). */
export type ExecutionStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled' | 'terminated';

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
  /** When the open-runs sweep last looked at this run in Temporal (null: never). */
  @Column({ name: 'checked_at', type: 'timestamptz', nullable: true }) checkedAt!: Date | null;
  /** Set while the sweep sees the run's workflow task failing; null otherwise. */
  @Column({ name: 'run_health', type: 'jsonb', nullable: true }) runHealth!: RunHealth | null;
  /** Flow control (executions/flow/): the rendered key (null: none), its kind and concurrency limit. */
  @Column({ name: 'flow_key', type: 'text', nullable: true }) flowKey!: string | null;
  @Column({ name: 'flow_kind', type: 'text', nullable: true }) flowKind!: FlowKind | null;
  @Column({ name: 'flow_limit', type: 'integer', nullable: true }) flowLimit!: number | null;
  /** A throttled or debounced run: when it is due to start. */
  @Column({ name: 'not_before', type: 'timestamptz', nullable: true }) notBefore!: Date | null;
  /** When a flow-controlled run got its slot (started, or promoted from the queue). */
  @Column({ name: 'admitted_at', type: 'timestamptz', nullable: true }) admittedAt!: Date | null;
}

export type FlowKind = 'concurrency' | 'throttle' | 'debounce';
