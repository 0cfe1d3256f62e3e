/** An action run on a service, with its status, messages, parameters and results. */
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type ServiceActionStatus = 'pending_create' | 'pending' | 'in_progress' | 'success' | 'failed' | 'cancelled';

export interface ActionMessage {
  level: string;
  message: string;
  timestamp: number;
}

@Entity({ name: 'service_actions' })
export class ServiceActionEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'service_id', type: 'uuid' }) serviceId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ name: 'specification_id', type: 'uuid' }) specificationId!: string;
  @Column({ name: 'desired_specification_id', type: 'uuid', nullable: true }) desiredSpecificationId!: string | null;
  @Column({ type: 'text' }) status!: ServiceActionStatus;
  @Column({ type: 'jsonb' }) parameters!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) results!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) messages!: ActionMessage[];
  @Column({ name: 'link_id', type: 'uuid', nullable: true }) linkId!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
