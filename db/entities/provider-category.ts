/** A provider category (logging, cloud-providers, …), written by migrations. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'provider_categories' })
export class ProviderCategoryEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text' }) slug!: string;
  @Column({ type: 'text' }) name!: string;
}
