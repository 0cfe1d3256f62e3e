/**
 * Folder config entries gain an NRN: the one that guards them (config:read and
 * config:write are needed on it) and bounds their use (a workflow uses a folder
 * entry only when its own NRN reaches the entry's: api/access/workflow-reach.ts).
 * Rows written before were guarded by the organization's NRN, which they keep,
 * so default set-ups (workflows at the organization's NRN) see no change.
 * Workflow-scoped entries have none: their workflow's NRN guards them.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ConfigEntryNrn1763780000030 implements MigrationInterface {
  name = 'ConfigEntryNrn1763780000030';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE config_entries ADD COLUMN nrn text`);
    await runner.query(`UPDATE config_entries SET nrn = 'organization=' || organization_id WHERE path IS NOT NULL`);
    await runner.query(`ALTER TABLE config_entries ADD CONSTRAINT config_entries_nrn_on_folders CHECK ((path IS NULL) = (nrn IS NULL))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE config_entries DROP CONSTRAINT config_entries_nrn_on_folders`);
    await runner.query(`ALTER TABLE config_entries DROP COLUMN nrn`);
  }
}
