/** An API key of a user: only the SHA-256 of its value is kept (db/migrations/1764100000430-api-keys.ts). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

/** One grant of a key: a role on an NRN, as resolved when the key was created or changed. */
export interface ApiKeyGrant {
  nrn: string;
  role_id: number;
  role_slug: string;
}

export interface ApiKeyTag {
  key: string;
  value: string;
}

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', transformer: bigintAsNumber }) id!: number;
  // User and organization ids stay decimal strings (see UserEntity).
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ name: 'owner_id', type: 'bigint' }) ownerId!: string;
  @Column({ type: 'varchar', length: 100 }) name!: string;
  /** The key's public start (`npk_` and 8 characters): shown masked, and the rate limit's name for it. */
  @Column({ type: 'varchar', length: 32 }) prefix!: string;
  // Never read back with the row (select: false): only the exchange's lookup compares it.
  @Column({ name: 'key_hash', type: 'char', length: 64, select: false }) keyHash!: string;
  @Column({ type: 'jsonb' }) grants!: ApiKeyGrant[];
  @Column({ type: 'jsonb' }) tags!: ApiKeyTag[];
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt!: Date;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt!: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
