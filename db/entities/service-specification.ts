/** A service specification: attribute schema, selectors, visibility and defaults of its services. */
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

export interface SpecificationDimension {
  required: boolean;
  values?: string[];
}

@Entity({ name: 'service_specifications' })
@Unique('service_specifications_slug_unique', ['organizationId', 'slug'])
export class ServiceSpecificationEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'organization_id', type: 'bigint', transformer: bigintAsNumber }) organizationId!: number;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ name: 'visible_to', type: 'text', array: true }) visibleTo!: string[];
  @Column({ type: 'jsonb' }) attributes!: { schema: Record<string, unknown>; values: Record<string, unknown> };
  @Column({ type: 'jsonb' }) selectors!: Record<string, unknown>;
  @Column({ type: 'text' }) type!: 'dependency' | 'scope';
  @Column({ type: 'jsonb' }) dimensions!: Record<string, SpecificationDimension>;
  @Column({ name: 'assignable_to', type: 'text' }) assignableTo!: 'any' | 'dimension' | 'scope';
  @Column({ name: 'use_default_actions', type: 'boolean' }) useDefaultActions!: boolean;
  @Column({ name: 'use_default_naming', type: 'boolean' }) useDefaultNaming!: boolean;
  @Column({ type: 'jsonb', nullable: true }) scopes!: { provider?: { values: string[] } } | null;
  @Column({ name: 'package_id', type: 'uuid', nullable: true }) packageId!: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
