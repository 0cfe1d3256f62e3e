/** Provider categories (written by migrations only). */
import { Repository, type EntityManager } from 'typeorm';
import { ProviderCategoryEntity } from '../entities/provider-category';

export class ProviderCategoryRepository extends Repository<ProviderCategoryEntity> {
  static of(manager: EntityManager): ProviderCategoryRepository {
    return new ProviderCategoryRepository(ProviderCategoryEntity, manager);
  }

  async idsOf(slug: string): Promise<string[]> {
    const rows = await this.find({ select: { id: true }, where: { slug } });
    return rows.map((r) => r.id);
  }
}
