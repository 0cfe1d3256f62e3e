/** A provider category (logging, cloud-providers, …), written by migrations. */
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'provider_categories' })
export class ProviderCategoryEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'text', unique: true }) slug!: string;
  @Column({ type: 'text' }) name!: string;
}
