/** An entry of the metadata catalog, keyed by entity kind and id (accounts use `account`). */
import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'metadata_catalog' })
export class MetadataEntryEntity {
  @PrimaryColumn({ type: 'text' }) entity!: string;
  @PrimaryColumn({ name: 'entity_id', type: 'text' }) entityId!: string;
  @Column({ type: 'text' }) key!: string;
  @Column({ type: 'text' }) value!: string;
  @Column({ type: 'jsonb', default: () => "'[]'" }) schemas!: Array<Record<string, unknown>>;
  @Column({ type: 'jsonb', default: () => "'[]'" }) tags!: Array<{ key: string; value: string }>;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
