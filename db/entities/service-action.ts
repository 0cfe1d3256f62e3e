/** An action run on a service, with its status, messages, parameters and results. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'service_actions' })
export class ServiceActionEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'service_id', type: 'uuid' }) serviceId!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 255 }) slug!: string;
  @Column({ name: 'specification_id', type: 'uuid' }) specificationId!: string;
  @Column({ name: 'desired_specification_id', type: 'uuid', nullable: true }) desiredSpecificationId!: string | null;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb' }) parameters!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) results!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) messages!: Array<{ level: string; message: string; timestamp: number }>;
  @Column({ name: 'link_id', type: 'uuid', nullable: true }) linkId!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
