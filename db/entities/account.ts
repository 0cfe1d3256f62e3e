/** An account of an organization; soft-deleted accounts keep their row with `deleted_at`. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'bigint' }) id!: string;
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ type: 'varchar', length: 60 }) name!: string;
  @Column({ type: 'varchar', length: 70 }) slug!: string;
  @Column({ type: 'text' }) status!: 'active' | 'inactive' | 'deleted';
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
