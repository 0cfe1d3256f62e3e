/** A provider specification; `organizationId` null marks a global one shipped by the platform. */
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

@Entity({ name: 'provider_specifications' })
export class ProviderSpecificationEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'organization_id', type: 'bigint', nullable: true, transformer: bigintAsNumber }) organizationId!: number | null;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255, unique: true }) slug!: string;
  @Column({ type: 'text', nullable: true }) icon!: string | null;
  @Column({ type: 'text', nullable: true }) description!: string | null;
  @Column({ name: 'visible_to', type: 'text', array: true }) visibleTo!: string[];
  @Column({ type: 'jsonb' }) schema!: Record<string, unknown>;
  @Column({ name: 'allow_dimensions', type: 'boolean' }) allowDimensions!: boolean;
  @Column({ name: 'default_dimensions', type: 'jsonb' }) defaultDimensions!: Record<string, unknown>;
  @Column({ type: 'jsonb', default: () => "'[]'" }) tags!: Array<{ key: string; value: string; id: string }>;
  @Column({ type: 'uuid', array: true }) categories!: string[];
  @Column({ type: 'uuid', array: true, default: () => "'{}'" }) dependencies!: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
