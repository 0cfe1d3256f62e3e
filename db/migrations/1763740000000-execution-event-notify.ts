/**
 * Every new execution event NOTIFYs the `execution_events` channel with its
 * execution id, so each API process can LISTEN once and wake the event
 * streams that follow that execution instead of each stream polling.
 * PostgreSQL delivers a transaction's identical notifications once, so a
 * batch of events wakes its followers once, after it commits.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutionEventNotify1763740000000 implements MigrationInterface {
  name = 'ExecutionEventNotify1763740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_execution_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('execution_events', NEW.execution_id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER execution_events_notify AFTER INSERT ON execution_events
      FOR EACH ROW EXECUTE FUNCTION notify_execution_event()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER execution_events_notify ON execution_events');
    await q.query('DROP FUNCTION notify_execution_event()');
  }
}
