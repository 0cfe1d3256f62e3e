/** Services (instances of a service specification) and their actions. */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Services1763710000003 implements MigrationInterface {
  name = 'Services1763710000003';

  async up(q: QueryRunner): Promise<void> {
    // A specification with services cannot be deleted (RESTRICT); the API answers 409 first.
    await q.query(`
      CREATE TABLE services (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id bigint NOT NULL,
        name varchar(255) NOT NULL,
        slug varchar(255) NOT NULL,
        specification_id uuid NOT NULL REFERENCES service_specifications (id) ON DELETE RESTRICT,
        entity_nrn varchar(160) NOT NULL,
        status text NOT NULL,
        attributes jsonb NOT NULL,
        dimensions jsonb NOT NULL,
        package_revision_id uuid,
        desired_package_revision_id uuid,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX services_specification_idx ON services (specification_id)`);

    await q.query(`
      CREATE TABLE service_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        slug varchar(255) NOT NULL,
        specification_id uuid NOT NULL REFERENCES action_specifications (id),
        desired_specification_id uuid REFERENCES action_specifications (id),
        status text NOT NULL CHECK (status IN ('pending_create', 'pending', 'in_progress', 'success', 'failed', 'cancelled')),
        parameters jsonb NOT NULL,
        results jsonb NOT NULL,
        messages jsonb NOT NULL,
        link_id uuid,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX service_actions_service_idx ON service_actions (service_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE service_actions`);
    await q.query(`DROP TABLE services`);
  }
}
