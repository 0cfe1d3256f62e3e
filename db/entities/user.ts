/** A user of an organization (a person or a service account); grants point at users. */
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type UserType = 'person' | 'service_account';

/**
 * Keyed by (organization, id): a user id names a user within its organization.
 * Ids of users seen in tokens are the identity provider's; ids minted by POST /user start at 10^12.
 */
@Entity({ name: 'users' })
export class UserEntity {
  // Ids are read as PostgreSQL sends bigints, decimal strings: they are compared with token
  // claims as strings, and a number would round ids above 2^53 (two tenants would merge).
  @PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'BY DEFAULT' }) id!: string;
  @PrimaryColumn({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ type: 'text' }) type!: UserType;
  @Column({ type: 'varchar', length: 254, nullable: true }) email!: string | null;
  @Column({ type: 'varchar', length: 120, nullable: true }) name!: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
