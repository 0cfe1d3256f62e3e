/**
 * Issue 28: fewer bytes per execution.
 * - `execution_events` holds one row per written batch: its first event in `type`
 *   and `data`, the events after it (seq + 1, …) in `more`. Rows written before
 *   are batches of one (`more` null) and read as they are.
 *   A step event whose data its step run's row holds is stored as `[type, stepId, run]`.
 * - `execution_steps` stores records compact: without what its columns hold, and
 *   with items longer than 256 bytes in `execution_step_payloads`, once per
 *   execution and content, named by `items_hash` (SHA-256 of their jsonb text).
 *   Rows written before hold whole records (`items_hash` null) and read as they are.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CompactExecutionRecords1763800000300 implements MigrationInterface {
  name = 'CompactExecutionRecords1763800000300';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE execution_events ADD COLUMN more jsonb`);
    await runner.query(`
      CREATE TABLE execution_step_payloads (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        hash bytea NOT NULL,
        items jsonb NOT NULL,
        PRIMARY KEY (execution_id, hash)
      )`);
    await runner.query(`ALTER TABLE execution_steps ADD COLUMN items_hash bytea`);
  }

  async down(runner: QueryRunner): Promise<void> {
    const iso = (t: string) => `to_char(${t} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    // Each batch back into one row per event, references to step rows resolved (before the step records are made whole).
    const stepData = (ref: string) => `(SELECT CASE WHEN ${ref}->>0 = 'step.started'
        THEN jsonb_build_object('stepId', s.step_id, 'run', s.run, 'at', ${iso('s.started_at')})
        ELSE jsonb_build_object('stepId', s.step_id, 'run', s.run, 'at', ${iso('s.completed_at')}, 'status', s.status,
          'activePorts', COALESCE(s.record->'activePorts', '["default"]'::jsonb), 'error', COALESCE(s.record->'error', 'null'::jsonb)) END
      FROM execution_steps s WHERE s.execution_id = e.execution_id AND s.step_id = ${ref}->>1 AND s.run = (${ref}->>2)::int)`;
    await runner.query(`
      INSERT INTO execution_events (execution_id, seq, type, data, created_at)
      SELECT e.execution_id, e.seq + m.n::int,
        CASE WHEN jsonb_typeof(m.event) = 'array' THEN m.event->>0 ELSE m.event->>'type' END,
        CASE WHEN jsonb_typeof(m.event) = 'array' THEN ${stepData('m.event')} ELSE m.event->'data' END, e.created_at
      FROM execution_events e, jsonb_array_elements(e.more) WITH ORDINALITY AS m(event, n)
      WHERE e.more IS NOT NULL`);
    await runner.query(`
      UPDATE execution_events e SET data = ${stepData('(jsonb_build_array(e.type) || e.data)')}
      WHERE jsonb_typeof(e.data) = 'array'`);
    await runner.query(`ALTER TABLE execution_events DROP COLUMN more`);
    // Whole records again: what the reads rebuild, written back.
    await runner.query(`
      UPDATE execution_steps s SET record = b.whole || CASE WHEN b.whole ? 'outputs' THEN '{}'::jsonb
          ELSE jsonb_build_object('outputs', b.whole->'items'->0) END
      FROM execution_steps s2
      LEFT JOIN execution_step_payloads p ON p.execution_id = s2.execution_id AND p.hash = s2.items_hash
      CROSS JOIN LATERAL (SELECT (s2.record || jsonb_build_object('stepId', s2.step_id, 'run', s2.run, 'status', s2.status)
        || CASE WHEN s2.items_hash IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('items', p.items) END
        || CASE WHEN s2.record ? 'activePorts' THEN '{}'::jsonb ELSE '{"activePorts": ["default"]}'::jsonb END
        || CASE WHEN s2.record ? 'startedAt' OR s2.started_at IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('startedAt', ${iso('s2.started_at')}) END
        || CASE WHEN s2.record ? 'completedAt' OR s2.completed_at IS NULL THEN '{}'::jsonb
           ELSE jsonb_build_object('completedAt', ${iso('s2.completed_at')}) END)
        - CASE WHEN s2.record->'startedAt' = 'null'::jsonb THEN 'startedAt' ELSE '' END AS whole) b
      WHERE s2.execution_id = s.execution_id AND s2.step_id = s.step_id AND s2.run = s.run AND NOT s2.record ? 'stepId'`);
    await runner.query(`ALTER TABLE execution_steps DROP COLUMN items_hash`);
    await runner.query(`DROP TABLE execution_step_payloads`);
  }
}
