/**
 * `selectColumns` without some properties: for reads that must not fetch a
 * column (a ciphertext, a large jsonb document) but otherwise return the entity.
 */
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { selectColumns } from '../sql';

export function selectColumnsExcept<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  except: Array<keyof T & string>,
  alias?: string,
): string {
  const key = `${manager.connection.getMetadata(entity).tableName}:${alias ?? ''}:${except.join(',')}`;
  let list = cache.get(key);
  if (list === undefined) {
    const dropped = new Set(except.map((property) => ` AS "${property}"`));
    list = selectColumns(manager, entity, alias)
      .split(', ')
      .filter((part) => ![...dropped].some((suffix) => part.endsWith(suffix)))
      .join(', ');
    cache.set(key, list);
  }
  return list;
}
const cache = new Map<string, string>();
