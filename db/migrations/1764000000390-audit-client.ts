/**
 * Issue 39: the audit trail records the server's own request id (`request_id`), and beside it
 * the client's `X-Request-Id` (`client_request_id`) and the address the request came from
 * (`client_address`, through trusted proxies only). Events written before have neither.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditClient1764000000390 implements MigrationInterface {
  name = 'AuditClient1764000000390';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE audit_events ADD COLUMN client_request_id text NULL, ADD COLUMN client_address text NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE audit_events DROP COLUMN client_address, DROP COLUMN client_request_id`);
  }
}
