/**
 * Issue 44: flow control. An execution may be `queued` (recorded, no Temporal workflow yet) under a
 * flow-control key of its workflow; the key, the kind, the concurrency limit it was admitted under, when
 * a throttled or debounced run is due, and when it got its slot are columns of its row, so admission and
 * promotion are statements over `executions` alone (executions/flow/). An alias may override the
 * definition's flow control (`workflow_aliases.flow_control`).
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FlowControl1764200000440 implements MigrationInterface {
  name = 'FlowControl1764200000440';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP CONSTRAINT IF EXISTS executions_status_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_status_check
         CHECK (status IN ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'))`,
    );
    await q.query(`
      ALTER TABLE executions
        ADD COLUMN flow_key text NULL,
        ADD COLUMN flow_kind text NULL CHECK (flow_kind IN ('concurrency', 'throttle', 'debounce')),
        ADD COLUMN flow_limit integer NULL,
        ADD COLUMN not_before timestamptz NULL,
        ADD COLUMN admitted_at timestamptz NULL`);
    // The live runs of one key (holders and queue), in queue order: what admission and promotion count and take.
    await q.query(
      `CREATE INDEX executions_flow_live ON executions (organization_id, workflow_id, flow_key, created_at, id)
         WHERE flow_key IS NOT NULL AND status IN ('queued', 'running', 'waiting')`,
    );
    // A throttle key's planned starts, latest first: what throttle admission reads (ended runs included).
    await q.query(
      `CREATE INDEX executions_flow_planned ON executions (organization_id, workflow_id, flow_key, (COALESCE(not_before, admitted_at)))
         WHERE flow_kind = 'throttle'`,
    );
    // The queued runs, for the flow sweep (due ones) and the per-organization queue cap.
    await q.query(`CREATE INDEX executions_queued ON executions (organization_id, created_at, id) WHERE status = 'queued'`);
    await q.query(`ALTER TABLE workflow_aliases ADD COLUMN flow_control jsonb NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_aliases DROP COLUMN flow_control`);
    await q.query(`DROP INDEX executions_queued`);
    await q.query(`DROP INDEX executions_flow_planned`);
    await q.query(`DROP INDEX executions_flow_live`);
    await q.query(`DELETE FROM executions WHERE status = 'queued'`);
    await q.query(
      `ALTER TABLE executions DROP COLUMN flow_key, DROP COLUMN flow_kind, DROP COLUMN flow_limit, DROP COLUMN not_before, DROP COLUMN admitted_at`,
    );
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_status_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_status_check
         CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'))`,
    );
  }
}
