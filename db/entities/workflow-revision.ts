/** An immutable, numbered snapshot of a normalized workflow definition. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'workflow_revisions' })
export class WorkflowRevisionEntity {
  @PrimaryColumn({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  @PrimaryColumn({ type: 'integer' }) revision!: number;
  @Column({ type: 'jsonb' }) definition!: Record<string, unknown>;
  @Column({ name: 'content_hash', type: 'text' }) contentHash!: string;
  @Column({ name: 'created_by', type: 'text', nullable: true }) createdBy!: string | null;
  @Column({ name: 'release_notes', type: 'text', nullable: true }) releaseNotes!: string | null;
  @Column({ name: 'semantic_version', type: 'text', nullable: true }) semanticVersion!: string | null;
  @Column({ name: 'engine_version', type: 'text' }) engineVersion!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
