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

/**
 * Where a workflow looks for entries it uses: its own entries always, a folder entry only when
 * `reaches` answers true for the entry's NRN (the workflow-reach rule, api/access/workflow-reach.ts,
 * bound to the workflow's NRN by the caller: the filter runs here in JS, never as a second rule in SQL).
 */
export interface ReachingPlace extends ConfigPlace {
  reaches(folderEntryNrn: string): boolean;
}

/** An entry as `effective` returns it: what a step needs to use it. */
export type EffectiveEntry = Pick<ConfigEntryEntity, 'id' | 'name' | 'version' | 'value' | 'encryptedValue'>;

/** A name that has entries where the workflow looks, none of them within its reach: the first one's NRN. */
export interface OutOfReach {
  name: string;
  nrn: string;
}

/** Whether the workflow of `place` may use `row` (own entries always; a folder entry by its NRN). */
const usableAt = (place: ReachingPlace, row: Pick<ConfigEntryEntity, 'workflowId' | 'nrn'>): boolean =>
  row.workflowId !== null || (row.nrn !== null && place.reaches(row.nrn));

/**
 * Per name, the first usable row (rows come in precedence order), and the names whose rows are
 * all out of reach.
 */
function firstUsable<T extends Pick<ConfigEntryEntity, 'name' | 'workflowId' | 'nrn'>>(
  place: ReachingPlace,
  rows: T[],
): { entries: T[]; outOfReach: OutOfReach[] } {
  const chosen = new Map<string, T>();
  const outside = new Map<string, string>();
  for (const row of rows) {
    if (chosen.has(row.name)) continue;
    if (usableAt(place, row)) chosen.set(row.name, row);
    else if (!outside.has(row.name)) outside.set(row.name, row.nrn ?? '');
  }
  return {
    entries: [...chosen.values()],
    outOfReach: [...outside].filter(([name]) => !chosen.has(name)).map(([name, nrn]) => ({ name, nrn })),
  };
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

  /**
   * Creates the entry, or rotates the one at its place when that has the same secret flag and NRN
   * (a flag or NRN never changes: otherwise nothing is written).
   */
  async upsertEntry(entry: ConfigWrite): Promise<{ row: ConfigEntryView; created: boolean } | 'secret-flag-differs' | 'nrn-differs'> {
    const rows = await rowsOf<ConfigEntryView & { created: boolean }>(
      this.manager,
      `INSERT INTO config_entries AS c (id, organization_id, name, secret, path, workflow_id, value, encrypted_value, created_by, nrn)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (organization_id, name, (COALESCE(path, '')), (COALESCE(workflow_id, '')))
       DO UPDATE SET value = EXCLUDED.value, encrypted_value = EXCLUDED.encrypted_value, version = c.version + 1, updated_at = now()
       WHERE c.secret = EXCLUDED.secret AND c.nrn IS NOT DISTINCT FROM EXCLUDED.nrn
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
        entry.nrn,
      ],
    );
    if (rows.length === 0) {
      // Nothing written: the entry at that place differs in its flag or its NRN (the route decided on
      // what it read before; an entry replaced in between lands here too). Rare: one more read says which.
      const existing = await this.findAtPlace(entry.organizationId, entry.name, entry);
      return existing && existing.secret === entry.secret ? 'nrn-differs' : 'secret-flag-differs';
    }
    const { created, ...row } = rows[0];
    return { row, created };
  }

  /** The entry of that name at a place (a folder path or a workflow). */
  async findAtPlace(
    organizationId: string,
    name: string,
    place: Pick<ConfigEntryEntity, 'path' | 'workflowId'>,
  ): Promise<ConfigEntryView | undefined> {
    const [row] = await rowsOf<ConfigEntryView>(
      this.manager,
      `SELECT ${this.visible} FROM config_entries
       WHERE organization_id = $1 AND name = $2 AND COALESCE(path, '') = COALESCE($3::text, '') AND COALESCE(workflow_id, '') = COALESCE($4::text, '')`,
      [organizationId, name, place.path, place.workflowId],
    );
    return row;
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

  /** Folder entries at `path` and in every folder beneath it, by folder then name (`/` is every folder). */
  async listUnder(organizationId: string, path: string): Promise<ConfigEntryView[]> {
    const prefix = path === '/' ? '/' : `${path}/`;
    return rowsOf<ConfigEntryView>(
      this.manager,
      `SELECT ${this.visible} FROM config_entries
       WHERE organization_id = $1 AND path IS NOT NULL AND (path = $2 OR left(path, length($3)) = $3)
       ORDER BY path, name, secret`,
      [organizationId, path, prefix],
    );
  }

  /** Which of the given names have an entry (of which kind) the workflow may use, somewhere it looks. */
  async visibleNames(
    organizationId: string,
    place: ReachingPlace,
    names: string[],
  ): Promise<Array<Pick<ConfigEntryEntity, 'name' | 'secret'>>> {
    if (names.length === 0) return [];
    const rows = await rowsOf<Pick<ConfigEntryEntity, 'name' | 'secret' | 'workflowId' | 'nrn'>>(
      this.manager,
      `SELECT name, secret, workflow_id AS "workflowId", nrn FROM config_entries
       WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[])`,
      [organizationId, place.workflowId, place.paths, names],
    );
    const seen = new Map<string, Pick<ConfigEntryEntity, 'name' | 'secret'>>();
    for (const row of rows) if (usableAt(place, row)) seen.set(`${row.secret}:${row.name}`, { name: row.name, secret: row.secret });
    return [...seen.values()];
  }

  /**
   * The effective entry of each name for a workflow (first match of workflow,
   * deepest folder, ancestors, root, among the entries it may use), of one kind:
   * `secrets.*` and `vars.*` are disjoint namespaces; and the names found only out
   * of its reach. Used by activities and the webhook trigger; this is the one read
   * that selects ciphertext (only the chosen entries' is decrypted, by the callers).
   */
  async effective(
    organizationId: string,
    place: ReachingPlace,
    names: string[],
    secret: boolean,
  ): Promise<{ entries: EffectiveEntry[]; outOfReach: OutOfReach[] }> {
    if (names.length === 0) return { entries: [], outOfReach: [] };
    const rows = await rowsOf<EffectiveEntry & Pick<ConfigEntryEntity, 'workflowId' | 'nrn'>>(
      this.manager,
      `SELECT id, name, version, value, encrypted_value AS "encryptedValue", workflow_id AS "workflowId", nrn FROM config_entries
       WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[]) AND secret = $5
       ORDER BY name, CASE WHEN workflow_id IS NOT NULL THEN -1 ELSE array_position($3::text[], path) END`,
      [organizationId, place.workflowId, place.paths, names, secret],
    );
    const { entries, outOfReach } = firstUsable(place, rows);
    return { entries: entries.map(({ workflowId: _w, nrn: _n, ...entry }) => entry), outOfReach };
  }
}
