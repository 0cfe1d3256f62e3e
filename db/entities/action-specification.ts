/** An action of a service specification (default create/update/delete, or custom) with its schemas. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'action_specifications' })
export class ActionSpecificationEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'service_specification_id', type: 'uuid' }) serviceSpecificationId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ type: 'text' }) type!: 'create' | 'update' | 'delete' | 'custom';
  @Column({ type: 'jsonb' }) parameters!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) results!: Record<string, unknown>;
  @Column({ name: 'is_default', type: 'boolean' }) isDefault!: boolean;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
