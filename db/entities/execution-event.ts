/**
 * A step, wait or end event of an execution, numbered densely (`seq` is the Server-Sent Events id), with the
 * events written right after it in the same batch (`more`: seq + 1, seq + 2, …): one row per batch, not per
 * event. Rows written before migration 1763800000300 hold one event each (`more` null).
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One event as the stream serves it. */
export interface StreamEventData {
  type: string;
  data: Record<string, unknown>;
}

@Entity({ name: 'execution_events' })
export class ExecutionEventEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ type: 'integer' }) seq!: number;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'jsonb' }) data!: Record<string, unknown>;
  /** The events numbered seq + 1, seq + 2, … written with this one (null: none). */
  @Column({ type: 'jsonb', nullable: true }) more!: StreamEventData[] | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
