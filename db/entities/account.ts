/** An account of an organization; soft-deleted accounts keep their row with `deleted_at`. */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

export type AccountStatus = 'active' | 'inactive' | 'deleted';

@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', transformer: bigintAsNumber }) id!: number;
  @Column({ name: 'organization_id', type: 'bigint', transformer: bigintAsNumber }) organizationId!: number;
  @Column({ type: 'varchar', length: 60 }) name!: string;
  @Column({ type: 'varchar', length: 70 }) slug!: string;
  @Column({ type: 'text' }) status!: AccountStatus;
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
