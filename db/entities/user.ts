/** A user of an organization (a person or a service account); grants point at users. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'bigint' }) id!: string;
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ type: 'text' }) type!: 'person' | 'service_account';
  @Column({ type: 'varchar', length: 254, nullable: true }) email!: string | null;
  @Column({ type: 'varchar', length: 120, nullable: true }) name!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
