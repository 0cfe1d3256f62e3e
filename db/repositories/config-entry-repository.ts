/**
 * The `config_entries` table (secrets and variables). Upsert is one statement
 * keyed by the unique index over the place, so concurrent writers of one name
 * leave one row; the secret flag is checked in the same statement (a flag change
 * updates nothing). Reads never select the ciphertext, except `effective`, the
 * one read activities decrypt from.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ConfigEntryEntity } from '../entities/config-entry';
import { rowsOf } from '../sql';
import { selectColumnsExcept } from './select-except';

/** An entry as reads return it: everything but the ciphertext. */
export type ConfigEntryView = Omit<ConfigEntryEntity, 'encryptedValue'>;

export type ConfigWrite = Omit<ConfigEntryEntity, 'version' | 'createdAt' | 'updatedAt'> & { createdBy: string };

/** Where a workflow or folder looks for entries: the workflow itself and folder paths, deepest first. */
export interface ConfigPlace {
  workflowId: string | null;
  paths: string[];
}

/** `/a/b` → `['/a/b', '/a', '/']`: the folder and its ancestors, deepest first. */
export function folderChain(path: string): string[] {
  const segments = path.split('/').filter((s) => s !== '');
  const chain: string[] = [];
  for (let i = segments.length; i > 0; i -= 1) chain.push('/' + segments.slice(0, i).join('/'));
  chain.push('/');
  return chain;
}

export class ConfigEntryRepository extends Repository<ConfigEntryEntity> {
  constructor(manager: EntityManager) {
    super(ConfigEntryEntity, manager);
  }

  private get visible(): string {
    return selectColumnsExcept(this.manager, ConfigEntryEntity, ['encryptedValue']);
  }

  async upsertEntry(entry: ConfigWrite): Promise<{ row: ConfigEntryView; created: boolean } | 'secret-flag-differs'> {
    const rows = await rowsOf<ConfigEntryView & { created: boolean }>(
      this.manager,
      `INSERT INTO config_entries AS c (id, organization_id, name, secret, path, workflow_id, value, encrypted_value, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (organization_id, name, (COALESCE(path, '')), (COALESCE(workflow_id, '')))
       DO UPDATE SET value = EXCLUDED.value, encrypted_value = EXCLUDED.encrypted_value, version = c.version + 1, updated_at = now()
       WHERE c.secret = EXCLUDED.secret
       RETURNING ${this.visible}, (xmax = 0) AS created`,
      [
        entry.id,
        entry.organizationId,
        entry.name,
        entry.secret,
        entry.path,
        entry.workflowId,
        entry.value,
        entry.encryptedValue,
        entry.createdBy,
      ],
    );
    if (rows.length === 0) return 'secret-flag-differs';
    const { created, ...row } = rows[0];
    return { row, created };
  }

  async findEntry(organizationId: string, id: string): Promise<ConfigEntryView | undefined> {
    const [row] = await rowsOf<ConfigEntryView>(
      this.manager,
      `SELECT ${this.visible} FROM config_entries WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return row;
  }

  async rotate(
    organizationId: string,
    id: string,
    value: Pick<ConfigEntryEntity, 'value' | 'encryptedValue'>,
  ): Promise<ConfigEntryView | undefined> {
    const [row] = await rowsOf<ConfigEntryView>(
      this.manager,
      `UPDATE config_entries SET value = $3, encrypted_value = $4, version = version + 1, updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING ${this.visible}`,
      [organizationId, id, value.value, value.encryptedValue],
    );
    return row;
  }

  async deleteEntry(organizationId: string, id: string): Promise<boolean> {
    const result = await this.delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Entries at one place, or at every place a workflow or folder sees, ordered by
   * precedence: workflow, deepest folder, ancestors, root.
   */
  async listAt(organizationId: string, place: ConfigPlace): Promise<ConfigEntryView[]> {
    return rowsOf<ConfigEntryView>(
      this.manager,
      `SELECT ${this.visible} FROM config_entries
       WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[]))
       ORDER BY CASE WHEN workflow_id IS NOT NULL THEN -1 ELSE array_position($3::text[], path) END, name, secret`,
      [organizationId, place.workflowId, place.paths],
    );
  }

  /** Which of the given names have an entry (of which kind) somewhere the workflow sees. */
  async visibleNames(
    organizationId: string,
    place: ConfigPlace,
    names: string[],
  ): Promise<Array<Pick<ConfigEntryEntity, 'name' | 'secret'>>> {
    if (names.length === 0) return [];
    return rowsOf(
      this.manager,
      `SELECT DISTINCT name, secret FROM config_entries
       WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[])`,
      [organizationId, place.workflowId, place.paths, names],
    );
  }

  /**
   * The effective entry of each name for a workflow (first match of workflow,
   * deepest folder, ancestors, root), of one kind: `secrets.*` and `vars.*` are
   * disjoint namespaces. Used by activities; this is the one read that selects
   * ciphertext.
   */
  async effective(
    organizationId: string,
    place: ConfigPlace,
    names: string[],
    secret: boolean,
  ): Promise<Array<Pick<ConfigEntryEntity, 'id' | 'name' | 'version' | 'value' | 'encryptedValue'>>> {
    if (names.length === 0) return [];
    return rowsOf(
      this.manager,
      `SELECT DISTINCT ON (name) id, name, version, value, encrypted_value AS "encryptedValue" FROM config_entries
       WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[]) AND secret = $5
       ORDER BY name, CASE WHEN workflow_id IS NOT NULL THEN -1 ELSE array_position($3::text[], path) END`,
      [organizationId, place.workflowId, place.paths, names, secret],
    );
  }
}
