/**
 * Writes that answer with the whole row, in one statement: the query builder's INSERT or UPDATE
 * with `RETURNING selectColumns(...)`, so the row comes back as the entity (bigint ids as numbers,
 * which TypeORM's own generated maps would leave as strings). Values are plain entity
 * fields (jsonb objects are serialized by TypeORM).
 */
import type { ObjectLiteral, Repository } from 'typeorm';
import { selectColumns } from '../sql';

export async function insertReturning<T extends ObjectLiteral>(repository: Repository<T>, values: Partial<T>): Promise<T> {
  const result = await repository
    .createQueryBuilder()
    .insert()
    .values(values)
    .returning(selectColumns(repository.manager, repository.target))
    .updateEntity(false)
    .execute();
  return (result.raw as T[])[0];
}

/** Updates the row with primary key `id` (and `updatedAt`, where the entity has one); undefined when there is none. */
export async function updateReturning<T extends ObjectLiteral & { id: string | number }>(
  repository: Repository<T>,
  id: T['id'],
  values: Partial<T>,
): Promise<T | undefined> {
  const result = await repository
    .createQueryBuilder()
    .update()
    .set(values)
    .where('id = :id', { id })
    .returning(selectColumns(repository.manager, repository.target))
    .updateEntity(false)
    .execute();
  return (result.raw as T[])[0];
}
