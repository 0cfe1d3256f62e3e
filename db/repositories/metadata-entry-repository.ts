/** The metadata catalog: one entry per (entity kind, entity id). */
import { Repository, type EntityManager } from 'typeorm';
import { MetadataEntryEntity } from '../entities/metadata-entry';
import { rowsOf } from '../sql';

export type MetadataFields = Pick<MetadataEntryEntity, 'key' | 'value' | 'schemas' | 'tags'>;

export class MetadataEntryRepository extends Repository<MetadataEntryEntity> {
  static of(manager: EntityManager): MetadataEntryRepository {
    return new MetadataEntryRepository(MetadataEntryEntity, manager);
  }

  async findFor(entity: string, entityId: string | number): Promise<MetadataEntryEntity | null> {
    return this.findOneBy({ entity, entityId: String(entityId) });
  }

  /** Creates or replaces the entry of an entity (ON CONFLICT: concurrent writers never collide). */
  async put(entity: string, entityId: string | number, fields: MetadataFields): Promise<void> {
    await rowsOf(
      this.manager,
      `INSERT INTO metadata_catalog (entity, entity_id, key, value, schemas, tags) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (entity, entity_id) DO UPDATE
         SET key = EXCLUDED.key, value = EXCLUDED.value, schemas = EXCLUDED.schemas, tags = EXCLUDED.tags, updated_at = now()`,
      [entity, String(entityId), fields.key, fields.value, JSON.stringify(fields.schemas), JSON.stringify(fields.tags)],
    );
  }
}
