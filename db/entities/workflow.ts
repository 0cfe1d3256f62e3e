/** A workflow: the stable identity whose content lives in revisions. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'workflows' })
export class WorkflowEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text', nullable: true }) key!: string | null;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text', nullable: true }) description!: string | null;
  @Column({ type: 'text' }) path!: string;
  @Column({ type: 'text', nullable: true }) nrn!: string | null;
  @Column({ type: 'jsonb', nullable: true }) metadata!: Record<string, unknown> | null;
  @Column({ name: 'latest_revision', type: 'integer' }) latestRevision!: number;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
