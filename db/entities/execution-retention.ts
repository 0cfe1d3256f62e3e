/** How long an organization (`workflowId` = '') or one of its workflows keeps its ended executions. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The `workflowId` of an organization's own setting. */
export const ORGANIZATION_WIDE = '';

@Entity({ name: 'execution_retention' })
export class ExecutionRetentionEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @PrimaryColumn({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  /** Days after an execution ended before the sweep removes it (1 to 3650). */
  @Column({ name: 'retention_days', type: 'integer' }) retentionDays!: number;
  @Column({ name: 'updated_by', type: 'text', nullable: true }) updatedBy!: string | null;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
