/** Service specifications. */
import { In, Repository, type EntityManager } from 'typeorm';
import { ServiceSpecificationEntity } from '../entities/service-specification';
import { rowsOf, selectColumns } from '../sql';
import { bind, raw, sql } from '../sql-builder';
import { pageOf, type Page } from './paged-rows';
import { insertReturning, updateReturning } from './returning';

/** What a write sets: everything but the generated id and timestamps. */
export type ServiceSpecificationFields = Omit<ServiceSpecificationEntity, 'id' | 'createdAt' | 'updatedAt'>;

export interface ServiceSpecificationFilter {
  organizationId: number;
  /** When set: only specifications whose visibleTo holds one of these NRNs. */
  visibleAt?: string[];
  type?: string;
  name?: string;
  slug?: string;
  offset: number;
  limit: number;
}

export class ServiceSpecificationRepository extends Repository<ServiceSpecificationEntity> {
  static of(manager: EntityManager): ServiceSpecificationRepository {
    return new ServiceSpecificationRepository(ServiceSpecificationEntity, manager);
  }

  async insertSpecification(fields: ServiceSpecificationFields): Promise<ServiceSpecificationEntity> {
    return insertReturning(this, fields);
  }

  async updateSpecification(id: string, fields: ServiceSpecificationFields): Promise<ServiceSpecificationEntity | undefined> {
    return updateReturning(this, id, fields);
  }

  async slugsLike(organizationId: number, base: string): Promise<Set<string>> {
    const rows = await rowsOf<{ slug: string }>(
      this.manager,
      sql`SELECT s.slug FROM service_specifications s WHERE s.organization_id = ${organizationId} AND left(s.slug, ${base.length}) = ${base}`,
    );
    return new Set(rows.map((r) => r.slug));
  }

  /** A filtered page and its total in one round trip (visibility is an array overlap on the GIN index). */
  async page(f: ServiceSpecificationFilter): Promise<Page<ServiceSpecificationEntity>> {
    const [visibleAt, type, name, slug] = [bind(f.visibleAt ?? null), bind(f.type ?? null), bind(f.name ?? null), bind(f.slug ?? null)];
    return pageOf<ServiceSpecificationEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, ServiceSpecificationEntity, 's'))} FROM service_specifications s
                  WHERE s.organization_id = ${f.organizationId}
                    AND (${visibleAt}::text[] IS NULL OR s.visible_to && ${visibleAt}::text[])
                    AND (${type}::text IS NULL OR s.type = ${type})
                    AND (${name}::text IS NULL OR s.name ILIKE '%' || replace(replace(replace(${name}, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%')
                    AND (${slug}::text IS NULL OR s.slug = ${slug})`,
      orderBy: '"createdAt", "id"',
      offset: f.offset,
      limit: f.limit,
    });
  }

  /** Which of the ids name scope specifications of the organization. */
  async scopeIdsAmong(organizationId: number, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.find({ select: { id: true }, where: { organizationId, type: 'scope', id: In(ids) } });
    return new Set(rows.map((r) => r.id));
  }
}
