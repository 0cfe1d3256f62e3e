/**
 * A workflow's NRN is what the engine checks grants against, and it must lie in
 * the workflow's organization (publishing refuses any other since this release).
 * Rows written before may name none or another organization: those would be out
 * of reach of every grant of their own organization, so they fall back to the
 * organization's NRN. Revisions keep the definition as it was published.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowNrnInOrganization1763750100002 implements MigrationInterface {
  name = 'WorkflowNrnInOrganization1763750100002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE workflows SET nrn = 'organization=' || organization_id
        WHERE nrn IS NULL OR split_part(split_part(nrn, ':', 1), '=', 2) IS DISTINCT FROM organization_id`,
    );
  }

  async down(): Promise<void> {
    // The NRNs replaced were unreachable; there is nothing to restore.
  }
}
