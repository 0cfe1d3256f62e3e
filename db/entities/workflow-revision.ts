/** An immutable, numbered snapshot of a normalized workflow definition. */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WorkflowDefinition } from '../../workflows/engine';

@Entity({ name: 'workflow_revisions' })
export class WorkflowRevisionEntity {
  @PrimaryColumn({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  @PrimaryColumn({ type: 'integer' }) revision!: number;
  /** The normalized definition (as validateDefinition returns it, with its nrn). */
  @Column({ type: 'jsonb' }) definition!: WorkflowDefinition;
  @Column({ name: 'content_hash', type: 'text' }) contentHash!: string;
  /**
   * The body the revision was published from, as sent (comments and order kept), and its format; null for
   * revisions published before sources were kept. A publish that changes only workflow-level fields or the
   * text's form (mode `overwritten`) replaces it on the newest revision: it is the text last published for this content.
   */
  // Not loaded by find* (select: false): a run or an activation reads the definition, never the text (up to BODY_LIMIT_BYTES).
  @Column({ type: 'text', nullable: true, select: false }) source!: string | null;
  @Column({ name: 'source_format', type: 'text', nullable: true }) sourceFormat!: 'yaml' | 'json' | null;
  @Column({ name: 'created_by', type: 'text', nullable: true }) createdBy!: string | null;
  @Column({ name: 'release_notes', type: 'text', nullable: true }) releaseNotes!: string | null;
  @Column({ name: 'semantic_version', type: 'text', nullable: true }) semanticVersion!: string | null;
  @Column({ name: 'engine_version', type: 'text' }) engineVersion!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
