/** Actions run on services. */
import { Repository, type EntityManager } from 'typeorm';
import { ServiceActionEntity, type ActionMessage } from '../entities/service-action';
import { rowsOf, selectColumns } from '../sql';
import { raw, sql } from '../sql-builder';
import { pageOf, type Page } from './paged-rows';
import { insertReturning } from './returning';

export type NewServiceAction = Pick<
  ServiceActionEntity,
  'serviceId' | 'name' | 'slug' | 'specificationId' | 'status' | 'parameters' | 'createdBy'
>;

export interface ServiceActionChanges {
  name?: string;
  slug?: string;
  desiredSpecificationId?: string | null;
  status?: ServiceActionEntity['status'];
  parameters?: Record<string, unknown>;
  results?: Record<string, unknown>;
  /** Appended to the action's messages. */
  messages?: ActionMessage[];
}

export class ServiceActionRepository extends Repository<ServiceActionEntity> {
  static of(manager: EntityManager): ServiceActionRepository {
    return new ServiceActionRepository(ServiceActionEntity, manager);
  }

  async insertAction(action: NewServiceAction): Promise<ServiceActionEntity> {
    return insertReturning(this, { ...action, results: {}, messages: [] });
  }

  /** A page of a service's actions, oldest first, and their total, in one round trip. */
  async page(serviceId: string, offset: number, limit: number): Promise<Page<ServiceActionEntity>> {
    return pageOf<ServiceActionEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, ServiceActionEntity, 'a'))} FROM service_actions a WHERE a.service_id = ${serviceId}`,
      orderBy: '"createdAt", "id"',
      offset,
      limit,
    });
  }

  /**
   * One UPDATE: fields that are given replace, messages append in the database (jsonb `||`), so
   * concurrent reporters never overwrite each other; nothing changes (undefined) when the appended
   * messages would make more than `maxMessages`.
   */
  async change(id: string, c: ServiceActionChanges, maxMessages: number): Promise<ServiceActionEntity | undefined> {
    const [row] = await rowsOf<ServiceActionEntity>(
      this.manager,
      `UPDATE service_actions SET
         name = COALESCE($2, name), slug = COALESCE($3, slug),
         desired_specification_id = CASE WHEN $4::boolean THEN $5::uuid ELSE desired_specification_id END,
         status = COALESCE($6, status), parameters = COALESCE($7::jsonb, parameters), results = COALESCE($8::jsonb, results),
         messages = messages || COALESCE($9::jsonb, '[]'::jsonb), updated_at = now()
       WHERE id = $1 AND jsonb_array_length(messages) + jsonb_array_length(COALESCE($9::jsonb, '[]'::jsonb)) <= $10 RETURNING ${selectColumns(this.manager, ServiceActionEntity)}`,
      [
        id,
        c.name ?? null,
        c.slug ?? null,
        c.desiredSpecificationId !== undefined,
        c.desiredSpecificationId ?? null,
        c.status ?? null,
        c.parameters === undefined ? null : JSON.stringify(c.parameters),
        c.results === undefined ? null : JSON.stringify(c.results),
        c.messages === undefined ? null : JSON.stringify(c.messages),
        maxMessages,
      ],
    );
    return row;
  }
}
