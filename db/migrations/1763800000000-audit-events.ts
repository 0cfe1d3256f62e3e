/**
 * The audit trail: one row per write through the API, inserted in the
 * change's own transaction. Read newest first by organization (the cursor is
 * the id), filtered by action, actor, target or NRN prefix; deleted by age in
 * batches (AUDIT_RETENTION_DAYS). `audit:read` is its permission: the
 * administrator holds it through `*`, and so does secops through `*:read`;
 * the viewer role's `*:read` becomes the list of every other resource's read,
 * so a viewer does not read who changed what.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

const VIEWER_READS = [
  'account:read',
  'user:read',
  'grant:read',
  'role:read',
  'service_specification:read',
  'provider_specification:read',
  'service:read',
  'action:read',
  'workflow:read',
  'execution:read',
  'config:read',
];

export class AuditEvents1763800000000 implements MigrationInterface {
  name = 'AuditEvents1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id text NOT NULL,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'service_token', 'webhook', 'schedule', 'system')),
        actor_id text NOT NULL,
        action text NOT NULL,
        target_nrn text,
        target_id text,
        request_id text NOT NULL,
        replica text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb
      )`);
    // Pages of one organization, newest first; the filters narrow within it.
    await q.query(`CREATE INDEX audit_events_page ON audit_events (organization_id, id DESC)`);
    await q.query(`CREATE INDEX audit_events_target ON audit_events (organization_id, target_id, id DESC) WHERE target_id IS NOT NULL`);
    await q.query(`CREATE INDEX audit_events_action ON audit_events (organization_id, action, id DESC)`);
    await q.query(`CREATE INDEX audit_events_nrn ON audit_events (organization_id, target_nrn text_pattern_ops, id DESC)`);
    // Retention deletes by age.
    await q.query(`CREATE INDEX audit_events_age ON audit_events (occurred_at)`);
    await q.query(`UPDATE roles SET permissions = $2::text[] WHERE slug = $1 AND permissions = ARRAY['*:read']`, ['viewer', VIEWER_READS]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE roles SET permissions = ARRAY['*:read'] WHERE slug = $1 AND permissions = $2::text[]`, ['viewer', VIEWER_READS]);
    await q.query('DROP TABLE audit_events');
  }
}
