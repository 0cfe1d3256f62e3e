/**
 * A step, wait or end event of an execution, numbered densely (`seq` is the Server-Sent Events id), with the
 * events written right after it in the same batch (`more`: seq + 1, seq + 2, …): one row per batch, not per
 * event. An event whose data the step run's row holds is stored as `[type, stepId, run]` (in `more`; in the
 * columns as `type` and `data` = `[stepId, run]`). Rows written before migration 1763800000300 hold one whole
 * event each (`more` null).
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One event as the stream serves it. `fromStep`: its data is what the step run's row says (a `step.started`'s
 * `{stepId, run, at}`, a `step.completed` or `step.failed`'s `{stepId, run, at, status, activePorts, error}`),
 * so only the step and run are stored and the read takes the rest from `execution_steps`.
 */
export interface StreamEventData {
  type: string;
  data: Record<string, unknown>;
  fromStep?: boolean;
}

@Entity({ name: 'execution_events' })
export class ExecutionEventEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ type: 'integer' }) seq!: number;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'jsonb' }) data!: Record<string, unknown> | [string, number];
  /** The events numbered seq + 1, seq + 2, … written with this one (null: none). */
  @Column({ type: 'jsonb', nullable: true }) more!: Array<Pick<StreamEventData, 'type' | 'data'> | [string, string, number]> | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
