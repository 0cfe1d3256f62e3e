/** A role granted to a user on an NRN; unique per (user, NRN, role). */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'grants' })
export class GrantEntity {
  @PrimaryColumn({ type: 'bigint' }) id!: string;
  @Column({ name: 'user_id', type: 'bigint' }) userId!: string;
  @Column({ type: 'varchar', length: 160 }) nrn!: string;
  @Column({ name: 'role_id', type: 'integer' }) roleId!: number;
  @Column({ type: 'text' }) status!: 'active' | 'pending';
  @Column({ name: 'granted_by', type: 'bigint', nullable: true }) grantedBy!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
