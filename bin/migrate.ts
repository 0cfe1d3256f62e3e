/** `npm run migrate`: applies pending migrations to the configured (or embedded) database and exits. */
import { openDatabase } from '../db/database';
import { createProcessLogger } from '../config/logger';
import { loadConfigOrExit } from './main';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createProcessLogger(config);
  const database = await openDatabase({ ...config, migrateOnStart: true }, logger);
  const pending = await database.dataSource.showMigrations();
  await database.close();
  logger.info({ pending }, 'migrations up to date');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
