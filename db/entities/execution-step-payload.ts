/**
 * A step run's output items, stored once per execution and content (the SHA-256 of their jsonb text): a
 * whole HTTP response passed on by the steps after it is one row, which their step records name by hash.
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Item } from '../../workflows/engine';

@Entity({ name: 'execution_step_payloads' })
export class ExecutionStepPayloadEntity {
  @PrimaryColumn({ name: 'execution_id', type: 'text' }) executionId!: string;
  @PrimaryColumn({ type: 'bytea' }) hash!: Buffer;
  @Column({ type: 'jsonb' }) items!: Item[];
}
