/** A service: an instance of a service specification at an entity NRN. */
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

@Entity({ name: 'services' })
export class ServiceEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'organization_id', type: 'bigint', transformer: bigintAsNumber }) organizationId!: number;
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
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
