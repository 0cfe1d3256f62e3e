/**
 * Users belong to organizations: a user is keyed by (organization_id, id), so
 * registering user N in one organization never blocks, nor reveals, user N of
 * another. Grants name their user's organization, and their foreign key points
 * at the user of that organization (a token of organization B whose subject is
 * a user id of organization A never holds A's grants).
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UsersPerOrganization1763750100000 implements MigrationInterface {
  name = 'UsersPerOrganization1763750100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE grants ADD COLUMN organization_id bigint`);
    await q.query(`UPDATE grants g SET organization_id = u.organization_id FROM users u WHERE u.id = g.user_id`);
    await q.query(`ALTER TABLE grants ALTER COLUMN organization_id SET NOT NULL`);
    await q.query(`ALTER TABLE grants DROP CONSTRAINT grants_user_id_fkey`);
    await q.query(`ALTER TABLE grants DROP CONSTRAINT grants_unique`);
    await q.query(`ALTER TABLE users DROP CONSTRAINT users_pkey`);
    // The primary key's index serves the per-organization listing the old index served.
    await q.query(`DROP INDEX users_organization_idx`);
    await q.query(`ALTER TABLE users ADD CONSTRAINT users_pkey PRIMARY KEY (organization_id, id)`);
    await q.query(
      `ALTER TABLE grants ADD CONSTRAINT grants_user_fkey FOREIGN KEY (organization_id, user_id) REFERENCES users (organization_id, id) ON DELETE CASCADE`,
    );
    await q.query(`ALTER TABLE grants ADD CONSTRAINT grants_unique UNIQUE (organization_id, user_id, nrn, role_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE grants DROP CONSTRAINT grants_unique`);
    await q.query(`ALTER TABLE grants DROP CONSTRAINT grants_user_fkey`);
    await q.query(`ALTER TABLE users DROP CONSTRAINT users_pkey`);
    await q.query(`ALTER TABLE users ADD CONSTRAINT users_pkey PRIMARY KEY (id)`);
    await q.query(`CREATE INDEX users_organization_idx ON users (organization_id, id)`);
    await q.query(`ALTER TABLE grants ADD CONSTRAINT grants_unique UNIQUE (user_id, nrn, role_id)`);
    await q.query(`ALTER TABLE grants ADD CONSTRAINT grants_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE`);
    await q.query(`ALTER TABLE grants DROP COLUMN organization_id`);
  }
}
