/** An action of a service specification (default create/update/delete, or custom) with its schemas. */
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

export type ActionSpecificationType = 'create' | 'update' | 'delete' | 'custom';

@Entity({ name: 'action_specifications' })
@Unique('action_specifications_slug_unique', ['serviceSpecificationId', 'slug'])
export class ActionSpecificationEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'service_specification_id', type: 'uuid' }) serviceSpecificationId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ type: 'text' }) type!: ActionSpecificationType;
  @Column({ type: 'jsonb' }) parameters!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) results!: Record<string, unknown>;
  @Column({ name: 'is_default', type: 'boolean' }) isDefault!: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
