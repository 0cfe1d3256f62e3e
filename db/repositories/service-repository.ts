/** Services: instances of service specifications. */
import { Repository, type EntityManager } from 'typeorm';
import { ServiceEntity } from '../entities/service';
import { rowsOf } from '../sql';
import { insertReturning } from './returning';

export type NewService = Pick<
  ServiceEntity,
  'organizationId' | 'name' | 'slug' | 'specificationId' | 'entityNrn' | 'status' | 'attributes' | 'dimensions' | 'createdBy'
>;

export class ServiceRepository extends Repository<ServiceEntity> {
  static of(manager: EntityManager): ServiceRepository {
    return new ServiceRepository(ServiceEntity, manager);
  }

  async insertService(service: NewService): Promise<ServiceEntity> {
    return insertReturning(this, service);
  }

  /** How many services use a specification, and how many of them are bound to a package revision (current or desired). */
  async countsOfSpecification(specificationId: string): Promise<{ services: number; bound: number }> {
    const [row] = await rowsOf<{ services: number; bound: number }>(
      this.manager,
      `SELECT count(*)::int AS services,
              count(*) FILTER (WHERE package_revision_id IS NOT NULL OR desired_package_revision_id IS NOT NULL)::int AS bound
         FROM services WHERE specification_id = $1`,
      [specificationId],
    );
    return row;
  }
}
