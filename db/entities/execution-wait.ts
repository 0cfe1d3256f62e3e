/**
 * An open signal wait the workflow reported: what reads of the execution show, and a hint for delivery by
 * correlation key (the update's validator decides).
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WaitAnswer, WaitAnswerGiven } from '../../workflows/engine';

@Entity({ name: 'execution_waits' })
export class ExecutionWaitEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ name: 'wait_id', type: 'text' }) waitId!: string;
  @Column({ name: 'step_id', type: 'text' }) stepId!: string;
  @Column({ name: 'signal_names', type: 'text', array: true }) signalNames!: string[];
  @Column({ name: 'correlation_key', type: 'text', nullable: true }) correlationKey!: string | null;
  @Column({ type: 'timestamptz' }) since!: Date;
  @Column({ name: 'timeout_at', type: 'timestamptz', nullable: true }) timeoutAt!: Date | null;
  /** A webhook wait's callback URL as the workflow made it (unsigned: the API adds the MAC when it shows it). */
  @Column({ name: 'callback_url', type: 'text', nullable: true }) callbackUrl!: string | null;
  /** A declared-answer wait: who may answer and what, as the run rendered it (null: a plain wait). */
  @Column({ type: 'jsonb', nullable: true }) answer!: WaitAnswer | null;
  /** The answers the workflow counted so far (one per user), oldest first. */
  @Column({ type: 'jsonb', default: () => "'[]'" }) answers!: WaitAnswerGiven[];
}
