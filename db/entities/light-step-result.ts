/** A completed light step call's result, kept until Temporal has surely recorded it (see the migration). */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PluginResult } from '../../workflows/engine';

@Entity({ name: 'light_step_results' })
export class LightStepResultEntity {
  @PrimaryColumn({ name: 'workflow_run_id', type: 'text' }) workflowRunId!: string;
  /** The call's key: the step and its activation (`<stepId>#<run>`), the same when the run replays it. */
  @PrimaryColumn({ name: 'call_key', type: 'text' }) callKey!: string;
  /** What the call returned to the workflow (secrets already scrubbed). */
  @Column({ type: 'jsonb' }) result!: PluginResult;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
