/** The registration of one trigger of an alias (webhook token, cron schedule). */
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TriggerBindingStatus = 'pending' | 'live' | 'failed' | 'inactive';

@Entity({ name: 'trigger_bindings' })
export class TriggerBindingEntity {
  @PrimaryColumn({ name: 'workflow_id', type: 'text' }) workflowId!: string;
  @PrimaryColumn({ name: 'alias_name', type: 'text' }) aliasName!: string;
  @PrimaryColumn({ name: 'trigger_id', type: 'text' }) triggerId!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'plugin_type', type: 'text' }) pluginType!: string;
  @Column({ type: 'integer' }) revision!: number;
  @Column({ type: 'text' }) status!: TriggerBindingStatus;
  @Column({ name: 'webhook_token', type: 'text', nullable: true }) webhookToken!: string | null;
  @Column({ name: 'schedule_id', type: 'text', nullable: true }) scheduleId!: string | null;
  @Column({ name: 'activated_at', type: 'timestamptz', nullable: true }) activatedAt!: Date | null;
  @Column({ name: 'deactivated_at', type: 'timestamptz', nullable: true }) deactivatedAt!: Date | null;
  @Column({ name: 'last_error', type: 'jsonb', nullable: true }) lastError!: { code: string; message: string } | null;
  @Column({ name: 'runtime_metadata', type: 'jsonb', nullable: true }) runtimeMetadata!: Record<string, unknown> | null;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
