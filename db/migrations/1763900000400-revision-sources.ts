/**
 * Issue 38: the author's text is kept. A revision stores the body it was published from, as sent
 * (`source`, YAML or JSON with its comments, in the format `source_format` names), beside the normalized
 * definition that runs. Revisions published before this have neither: readers render the definition.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RevisionSources1763900000400 implements MigrationInterface {
  name = 'RevisionSources1763900000400';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE workflow_revisions ADD COLUMN source text NULL`);
    await runner.query(`ALTER TABLE workflow_revisions ADD COLUMN source_format text NULL CHECK (source_format IN ('yaml', 'json'))`);
    await runner.query(
      `ALTER TABLE workflow_revisions ADD CONSTRAINT workflow_revisions_source_pair CHECK ((source IS NULL) = (source_format IS NULL))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE workflow_revisions DROP CONSTRAINT workflow_revisions_source_pair`);
    await runner.query(`ALTER TABLE workflow_revisions DROP COLUMN source_format`);
    await runner.query(`ALTER TABLE workflow_revisions DROP COLUMN source`);
  }
}
