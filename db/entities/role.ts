/** A role of the catalog (written by migrations only). */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { UserType } from './user';

@Entity({ name: 'roles' })
export class RoleEntity {
  @PrimaryColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'text', unique: true }) slug!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) description!: string;
  @Column({ type: 'text', array: true }) permissions!: string[];
  @Column({ name: 'user_types', type: 'text', array: true }) userTypes!: UserType[];
  @Column({ name: 'assignable_by', type: 'text', array: true }) assignableBy!: string[];
  @Column({ name: 'requires_approval', type: 'boolean' }) requiresApproval!: boolean;
}
