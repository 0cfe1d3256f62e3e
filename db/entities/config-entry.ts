/** A secret or variable on a folder path or a workflow. Secret values are stored encrypted only. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'config_entries' })
export class ConfigEntryEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'boolean' }) secret!: boolean;
  @Column({ type: 'text', nullable: true }) path!: string | null;
  @Column({ name: 'workflow_id', type: 'text', nullable: true }) workflowId!: string | null;
  /** A folder entry's NRN (guards it, bounds which workflows use it); null on workflow-scoped entries. */
  @Column({ type: 'text', nullable: true }) nrn!: string | null;
  @Column({ type: 'text', nullable: true }) value!: string | null;
  @Column({ name: 'encrypted_value', type: 'bytea', nullable: true }) encryptedValue!: Buffer | null;
  @Column({ type: 'integer' }) version!: number;
  @Column({ name: 'created_by', type: 'text', nullable: true }) createdBy!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
