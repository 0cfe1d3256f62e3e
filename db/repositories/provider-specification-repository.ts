/** Provider specifications (organizationId null: global, shipped by the platform). */
import { Repository, type EntityManager } from 'typeorm';
import { ProviderSpecificationEntity } from '../entities/provider-specification';
import { rowsOf, selectColumns } from '../sql';
import { bind, raw, sql } from '../sql-builder';
import { pageOf, type Page } from './paged-rows';
import { insertReturning, updateReturning } from './returning';

export type ProviderSpecificationFields = Pick<
  ProviderSpecificationEntity,
  | 'organizationId'
  | 'name'
  | 'slug'
  | 'icon'
  | 'description'
  | 'visibleTo'
  | 'schema'
  | 'allowDimensions'
  | 'defaultDimensions'
  | 'categories'
>;

export class ProviderSpecificationRepository extends Repository<ProviderSpecificationEntity> {
  static of(manager: EntityManager): ProviderSpecificationRepository {
    return new ProviderSpecificationRepository(ProviderSpecificationEntity, manager);
  }

  async insertSpecification(fields: ProviderSpecificationFields): Promise<ProviderSpecificationEntity> {
    return insertReturning(this, fields);
  }

  async updateSpecification(id: string, fields: ProviderSpecificationFields): Promise<ProviderSpecificationEntity | undefined> {
    return updateReturning(this, id, fields);
  }

  async slugsLike(base: string): Promise<Set<string>> {
    const rows = await rowsOf<{ slug: string }>(
      this.manager,
      sql`SELECT p.slug FROM provider_specifications p WHERE left(p.slug, ${base.length}) = ${base}`,
    );
    return new Set(rows.map((r) => r.slug));
  }

  /** Global specifications and those of one organization, global first, with their total, in one round trip. */
  async page(f: {
    organizationId: number | string;
    category?: string;
    slug?: string;
    offset: number;
    limit: number;
  }): Promise<Page<ProviderSpecificationEntity>> {
    const [category, slug] = [bind(f.category ?? null), bind(f.slug ?? null)];
    return pageOf<ProviderSpecificationEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, ProviderSpecificationEntity, 'p'))} FROM provider_specifications p
                  WHERE (p.organization_id IS NULL OR p.organization_id = ${f.organizationId})
                    AND (${category}::text IS NULL OR p.categories && ARRAY(SELECT id FROM provider_categories WHERE slug = ${category}))
                    AND (${slug}::text IS NULL OR p.slug = ${slug})`,
      orderBy: '"organizationId" NULLS FIRST, "createdAt", "id"',
      offset: f.offset,
      limit: f.limit,
    });
  }
}
