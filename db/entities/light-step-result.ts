/** A completed light step call's result, kept until Temporal has surely recorded it (see the migration). */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PluginResult } from '../../workflows/engine';

@Entity({ name: 'light_step_results' })
export class LightStepResultEntity {
  @PrimaryColumn({ name: 'workflow_run_id', type: 'text' }) workflowRunId!: string;
  /** The local activity's id: its sequence number in the run, stable across replays. */
  @PrimaryColumn({ name: 'activity_id', type: 'text' }) activityId!: string;
  /** What the call returned to the workflow (secrets already scrubbed). */
  @Column({ type: 'jsonb' }) result!: PluginResult;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
