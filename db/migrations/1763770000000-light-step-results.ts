/**
 * `light_step_results`: what each completed light step call returned, by the
 * workflow run and the call's key (the step and its activation, named the same
 * when the run is replayed or run again). Temporal records a local activity's
 * result only when the workflow task completes; a worker lost before that
 * replays the call elsewhere, and the worker answers from this row instead of
 * making the call again. Rows matter for minutes; the API's sweep deletes
 * them after a day.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class LightStepResults1763770000000 implements MigrationInterface {
  name = 'LightStepResults1763770000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE light_step_results (
        workflow_run_id text NOT NULL,
        call_key text NOT NULL,
        result jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_run_id, call_key)
      )`);
    await runner.query(`CREATE INDEX light_step_results_age ON light_step_results (created_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE light_step_results');
  }
}
