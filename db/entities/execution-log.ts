/** One log line, numbered densely per execution (`seq`) and per step (`stepSeq`) by the workflow. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

@Entity({ name: 'execution_logs' })
export class ExecutionLogEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ type: 'integer' }) seq!: number;
  @Column({ name: 'step_id', type: 'text' }) stepId!: string;
  @Column({ name: 'step_seq', type: 'integer' }) stepSeq!: number;
  @Column({ type: 'text' }) level!: LogLevel;
  @Column({ type: 'text' }) message!: string;
  @Column({ type: 'jsonb', nullable: true }) metadata!: Record<string, unknown> | null;
  @Column({ name: 'logged_at', type: 'timestamptz' }) loggedAt!: Date;
}
