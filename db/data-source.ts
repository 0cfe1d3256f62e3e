import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Schema changes happen through migrations only; `synchronize` stays off. */
export function createDataSource(url: string, poolSize = 20): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    poolSize,
    // A request waits at most 5 s for a connection: with PostgreSQL down or the pool exhausted it
    // fails (503, see db/unavailable.ts) instead of hanging.
    extra: { application_name: 'platform-api', idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 },
  });
}
