/** API keys (db/entities/api-key.ts): each statement names the owner, so one user never reads or changes another's key. */
import { Repository, type EntityManager } from 'typeorm';
import { ApiKeyEntity, type ApiKeyGrant, type ApiKeyTag } from '../entities/api-key';
import { deletedCount, poolQuery, rowsOf, selectColumns } from '../sql';
import { raw, sql } from '../sql-builder';
import { pageOf, type Page } from './paged-rows';

export interface ApiKeyOwner {
  organizationId: string;
  ownerId: string;
}

export interface NewApiKey extends ApiKeyOwner {
  name: string;
  prefix: string;
  keyHash: string;
  grants: ApiKeyGrant[];
  tags: ApiKeyTag[];
  expiresAt: Date;
}

export class ApiKeyRepository extends Repository<ApiKeyEntity> {
  static of(manager: EntityManager): ApiKeyRepository {
    return new ApiKeyRepository(ApiKeyEntity, manager);
  }

  async insertKey(key: NewApiKey): Promise<ApiKeyEntity> {
    const [row] = await rowsOf<ApiKeyEntity>(
      this.manager,
      `INSERT INTO api_keys (organization_id, owner_id, name, prefix, key_hash, grants, tags, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)
       RETURNING ${selectColumns(this.manager, ApiKeyEntity)}`,
      [
        key.organizationId,
        key.ownerId,
        key.name,
        key.prefix,
        key.keyHash,
        JSON.stringify(key.grants),
        JSON.stringify(key.tags),
        key.expiresAt,
      ],
    );
    return row;
  }

  /** A page of the owner's keys, newest first, expired ones included (their `expires_at` says so). */
  async pageOfOwner(owner: ApiKeyOwner, offset: number, limit: number): Promise<Page<ApiKeyEntity>> {
    return pageOf<ApiKeyEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, ApiKeyEntity, 'k'))} FROM api_keys k
                     WHERE k.organization_id = ${owner.organizationId} AND k.owner_id = ${owner.ownerId}`,
      orderBy: '"id" DESC',
      offset,
      limit,
    });
  }

  async findOwned(owner: ApiKeyOwner, id: number): Promise<ApiKeyEntity | undefined> {
    const [row] = await rowsOf<ApiKeyEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ApiKeyEntity)} FROM api_keys WHERE id = $1 AND organization_id = $2 AND owner_id = $3`,
      [id, owner.organizationId, owner.ownerId],
    );
    return row;
  }

  /** Changes name, grants and tags (those given); undefined when the owner has no such key. */
  async updateOwned(
    owner: ApiKeyOwner,
    id: number,
    change: { name?: string; grants?: ApiKeyGrant[]; tags?: ApiKeyTag[] },
  ): Promise<ApiKeyEntity | undefined> {
    const [row] = await rowsOf<ApiKeyEntity>(
      this.manager,
      `UPDATE api_keys
          SET name = COALESCE($4, name), grants = COALESCE($5::jsonb, grants), tags = COALESCE($6::jsonb, tags), updated_at = now()
        WHERE id = $1 AND organization_id = $2 AND owner_id = $3
        RETURNING ${selectColumns(this.manager, ApiKeyEntity)}`,
      [
        id,
        owner.organizationId,
        owner.ownerId,
        change.name ?? null,
        change.grants ? JSON.stringify(change.grants) : null,
        change.tags ? JSON.stringify(change.tags) : null,
      ],
    );
    return row;
  }

  /** Revokes (deletes) the owner's key; false when there was none. */
  async deleteOwned(owner: ApiKeyOwner, id: number): Promise<boolean> {
    return (
      (await deletedCount(this.manager, `DELETE FROM api_keys WHERE id = $1 AND organization_id = $2 AND owner_id = $3`, [
        id,
        owner.organizationId,
        owner.ownerId,
      ])) > 0
    );
  }

  /** The unexpired key with this hash, its last use set to now in the same statement; undefined when none. */
  async useByHash(keyHash: string): Promise<ApiKeyEntity | undefined> {
    const [row] = await rowsOf<ApiKeyEntity>(
      this.manager,
      `UPDATE api_keys SET last_used_at = now() WHERE key_hash = $1 AND expires_at > now()
        RETURNING ${selectColumns(this.manager, ApiKeyEntity)}`,
      [keyHash],
    );
    return row;
  }

  /** Whether the key still exists, unexpired, for this owner: checked on every request of a token minted for it. */
  async isLive(id: string, organizationId: string, ownerId: string): Promise<boolean> {
    const rows = await poolQuery<{ live: boolean }>(
      this.manager,
      'api-key-is-live',
      `SELECT true AS live FROM api_keys WHERE id = $1 AND organization_id = $2 AND owner_id = $3 AND expires_at > now()`,
      [id, organizationId, ownerId],
    );
    return rows.length > 0;
  }
}
