/** A declared-answer wait's notification, claimed by the activity that sends it: one per wait, whatever the retries. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'wait_notices' })
export class WaitNoticeEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ name: 'wait_id', type: 'text' }) waitId!: string;
  @Column({ name: 'claimed_at', type: 'timestamptz' }) claimedAt!: Date;
}
