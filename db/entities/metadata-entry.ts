/** An entry of the metadata catalog, keyed by entity kind and id (accounts use `account`). */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'metadata_catalog' })
export class MetadataEntryEntity {
  @PrimaryColumn({ type: 'text' }) entity!: string;
  @PrimaryColumn({ name: 'entity_id', type: 'text' }) entityId!: string;
  @Column({ type: 'text' }) key!: string;
  @Column({ type: 'text' }) value!: string;
  @Column({ type: 'jsonb' }) schemas!: Array<Record<string, unknown>>;
  @Column({ type: 'jsonb' }) tags!: Array<{ key: string; value: string }>;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
