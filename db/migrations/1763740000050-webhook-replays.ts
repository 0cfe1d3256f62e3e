/**
 * `webhook_replays`: the signed webhook requests seen while their signature is
 * still inside the acceptance window, so a replayed request is refused (409) by
 * whichever API replica receives it. The primary key is the idempotency guard;
 * rows are pruned once the window of their timestamp has passed. Only a digest
 * of the signature is kept, never the signature itself.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookReplays1763740000050 implements MigrationInterface {
  name = 'WebhookReplays1763740000050';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhook_replays (
        digest text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX webhook_replays_expiry ON webhook_replays (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE webhook_replays');
  }
}
