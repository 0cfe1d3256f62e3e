/** A step, wait or end event of an execution, numbered densely (`seq` is the Server-Sent Events id). */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'execution_events' })
export class ExecutionEventEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ type: 'integer' }) seq!: number;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'jsonb' }) data!: Record<string, unknown>;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
