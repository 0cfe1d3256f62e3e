/** A service specification: attribute schema, selectors, visibility and defaults of its services. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'service_specifications' })
export class ServiceSpecificationEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ name: 'visible_to', type: 'text', array: true }) visibleTo!: string[];
  @Column({ type: 'jsonb' }) attributes!: { schema: Record<string, unknown>; values: Record<string, unknown> };
  @Column({ type: 'jsonb' }) selectors!: Record<string, unknown>;
  @Column({ type: 'text' }) type!: 'dependency' | 'scope';
  @Column({ type: 'jsonb' }) dimensions!: Record<string, unknown>;
  @Column({ name: 'assignable_to', type: 'text' }) assignableTo!: 'any' | 'dimension' | 'scope';
  @Column({ name: 'use_default_actions', type: 'boolean' }) useDefaultActions!: boolean;
  @Column({ name: 'use_default_naming', type: 'boolean' }) useDefaultNaming!: boolean;
  @Column({ type: 'jsonb', nullable: true }) scopes!: Record<string, unknown> | null;
  @Column({ name: 'package_id', type: 'uuid', nullable: true }) packageId!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
