/** Users: the targets of grants. Callers are recorded on first sight (see GrantRepository.activeOfCaller). */
import { Repository, type EntityManager } from 'typeorm';
import { UserEntity, type UserType } from '../entities/user';
import { rowsOf, selectColumns } from '../sql';
import { raw, sql } from '../sql-builder';
import { pageOf, type Page } from './paged-rows';

export class UserRepository extends Repository<UserEntity> {
  static of(manager: EntityManager): UserRepository {
    return new UserRepository(UserEntity, manager);
  }

  /** A new user (the next minted id when none is given); undefined when the id is taken in its organization (ON CONFLICT: no race). */
  async register(user: {
    id?: number;
    organizationId: number;
    type: UserType;
    email?: string;
    name?: string;
  }): Promise<UserEntity | undefined> {
    const rows = await rowsOf<UserEntity>(
      this.manager,
      `INSERT INTO users (id, organization_id, type, email, name)
       VALUES (COALESCE($1::bigint, nextval(pg_get_serial_sequence('users', 'id'))), $2, $3, $4, $5)
       ON CONFLICT (organization_id, id) DO NOTHING
       RETURNING ${selectColumns(this.manager, UserEntity)}`,
      [user.id ?? null, user.organizationId, user.type, user.email ?? null, user.name ?? null],
    );
    return rows[0];
  }

  /** Records people the identity provider knows (first sight wins), in one statement. */
  async recordPeople(people: Array<Pick<UserEntity, 'id' | 'organizationId'>>): Promise<void> {
    await rowsOf(
      this.manager,
      `INSERT INTO users (id, organization_id, type)
       SELECT id, organization_id, 'person' FROM unnest($1::bigint[], $2::bigint[]) AS w(id, organization_id)
       ON CONFLICT (organization_id, id) DO NOTHING`,
      [people.map((p) => p.id), people.map((p) => p.organizationId)],
    );
  }

  /** A page of the users of an organization and their total, in one round trip. */
  async page(organizationId: number, offset: number, limit: number): Promise<Page<UserEntity>> {
    return pageOf<UserEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, UserEntity, 'u'))} FROM users u WHERE u.organization_id = ${organizationId}`,
      orderBy: '"id"',
      offset,
      limit,
    });
  }
}
