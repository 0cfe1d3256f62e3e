/** A role granted to a user of an organization on an NRN; unique per (organization, user, NRN, role). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';
import { bigintAsNumber } from '../sql';

export type GrantStatus = 'active' | 'pending';

@Entity({ name: 'grants' })
@Unique('grants_unique', ['organizationId', 'userId', 'nrn', 'roleId'])
export class GrantEntity {
  @PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', transformer: bigintAsNumber }) id!: number;
  // User and organization ids stay decimal strings (see UserEntity).
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ name: 'user_id', type: 'bigint' }) userId!: string;
  @Column({ type: 'varchar', length: 160 }) nrn!: string;
  @Column({ name: 'role_id', type: 'integer' }) roleId!: number;
  @Column({ type: 'text' }) status!: GrantStatus;
  @Column({ name: 'granted_by', type: 'bigint', nullable: true }) grantedBy!: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
