/**
 * The workflow engine's permissions in the roles catalog (the matrix is in the
 * docs/security.md, "Permissions"). Roles are data owned by the platform:
 * migrations are their only writers, so this one sets each role's whole list.
 * `admin` holds `*` and `viewer` `*:read` already (reading definitions,
 * executions and config entries; secret values are never returned).
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

const ENGINE: Record<string, { add: string[]; description?: [before: string, after: string] }> = {
  developer: {
    add: ['workflow:*', 'execution:*', 'config:read'],
    description: [
      'Manages service specifications, services and actions; may grant the viewer role.',
      'Manages service specifications, services and actions, writes and runs workflows; may grant the viewer role.',
    ],
  },
  ci: {
    add: ['workflow:read', 'workflow:write', 'workflow:execute'],
    description: [
      'Machine role for pipelines: runs services and their actions. Service accounts only.',
      'Machine role for pipelines: runs services and their actions, publishes and executes workflows. Service accounts only.',
    ],
  },
  secops: {
    add: ['config:write'],
    description: [
      'Audits grants and reads everything; a grant stays pending until an administrator approves it. People only.',
      'Audits grants, reads everything and manages secrets and variables; a grant stays pending until an administrator approves it. People only.',
    ],
  },
};

export class EnginePermissions1763750100001 implements MigrationInterface {
  name = 'EnginePermissions1763750100001';

  async up(q: QueryRunner): Promise<void> {
    for (const [slug, change] of Object.entries(ENGINE)) {
      await q.query(`UPDATE roles SET permissions = permissions || $2::text[], description = COALESCE($3, description) WHERE slug = $1`, [
        slug,
        change.add,
        change.description?.[1] ?? null,
      ]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [slug, change] of Object.entries(ENGINE)) {
      await q.query(
        `UPDATE roles SET permissions = ARRAY(SELECT p FROM unnest(permissions) p WHERE p <> ALL($2::text[])), description = COALESCE($3, description) WHERE slug = $1`,
        [slug, change.add, change.description?.[0] ?? null],
      );
    }
  }
}
