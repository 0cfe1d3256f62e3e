/**
 * Opens the service's database: the configured `DATABASE_URL`, or an embedded
 * PostgreSQL under `DATA_DIR`; then applies pending migrations unless switched off.
 */
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import type { Logger } from '../config/logger';
import { createDataSource } from './data-source';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface Database {
  dataSource: DataSource;
  /** True when this process started an embedded PostgreSQL. */
  embedded: boolean;
  /** Closes the pool, then stops the embedded server if there is one. */
  close(): Promise<void>;
}

export async function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir' | 'migrateOnStart'>,
  logger: Logger,
): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, database: 'platform', logger });
  const dataSource = createDataSource(config.databaseUrl ?? embedded!.url);
  try {
    await dataSource.initialize();
    if (config.migrateOnStart) await runMigrations(dataSource, logger);
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    dataSource,
    embedded: embedded !== undefined,
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

/** The readiness check: one round trip on a connection of the pool. */
export async function pingDatabase(dataSource: DataSource): Promise<void> {
  await dataSource.query('SELECT 1');
}

/** Arbitrary constant naming the advisory lock that serializes migrations across replicas. */
const MIGRATION_LOCK_KEY = 72_410_001;

export async function runMigrations(dataSource: DataSource, logger: Logger): Promise<void> {
  // Several replicas may start at once: the advisory lock lets one migrate while the others wait,
  // then find nothing left to do.
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    // One transaction for the whole batch: a failing migration leaves the schema as it was.
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.name) }, 'applied database migrations');
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}
