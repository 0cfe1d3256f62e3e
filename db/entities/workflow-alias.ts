/** A named pointer at a revision; `latest` follows the newest one. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'workflow_aliases' })
export class WorkflowAliasEntity {
  @PrimaryColumn({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  @PrimaryColumn({ type: 'text' }) name!: string;
  @Column({ type: 'integer' }) revision!: number;
  @Column({ type: 'boolean' }) active!: boolean;
  @Column({ type: 'jsonb', nullable: true }) metadata!: Record<string, unknown> | null;
  /** The alias's own `concurrency`, `throttle` or `debounce`, over the definition's (null: the definition's). */
  @Column({ name: 'flow_control', type: 'jsonb', nullable: true }) flowControl!: Record<string, unknown> | null;
  @Column({ name: 'updated_by', type: 'text', nullable: true }) updatedBy!: string | null;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
