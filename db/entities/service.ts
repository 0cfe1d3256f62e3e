/** A service: an instance of a service specification at an entity NRN. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'services' })
export class ServiceEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ name: 'specification_id', type: 'uuid' }) specificationId!: string;
  @Column({ name: 'entity_nrn', type: 'varchar', length: 160 }) entityNrn!: string;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb' }) attributes!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) dimensions!: Record<string, string>;
  @Column({ name: 'package_revision_id', type: 'uuid', nullable: true }) packageRevisionId!: string | null;
  @Column({ name: 'desired_package_revision_id', type: 'uuid', nullable: true }) desiredPackageRevisionId!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
