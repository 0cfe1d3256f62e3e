/** The roles catalog (written by migrations only). */
import { In, Repository, type EntityManager } from 'typeorm';
import { RoleEntity } from '../entities/role';

export class RoleRepository extends Repository<RoleEntity> {
  static of(manager: EntityManager): RoleRepository {
    return new RoleRepository(RoleEntity, manager);
  }

  async catalog(): Promise<RoleEntity[]> {
    return this.find({ order: { id: 'ASC' } });
  }

  /** The roles named by id or by slug, in one statement. */
  async findByIdsOrSlugs(ids: number[], slugs: string[]): Promise<RoleEntity[]> {
    return this.findBy([{ id: In(ids) }, { slug: In(slugs) }]);
  }
}
