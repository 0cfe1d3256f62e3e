/**
 * The test database: `DATABASE_URL` when set, else one throwaway embedded
 * PostgreSQL for the whole run, migrated once. Tests isolate themselves by
 * organization, not by database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config';
import { createDataSource } from '../../db/data-source';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { newExecutionId } from '../../executions';
import { runMigrations } from '../../db/database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded-postgres';
import { captureLogger } from './logger';

let shared: Promise<{ dataSource: DataSource; embedded?: EmbeddedDatabase; dir?: string }> | undefined;

export async function testDataSource(): Promise<DataSource> {
  shared ??= (async () => {
    const { logger } = captureLogger('info');
    const configured = loadConfig().databaseUrl;
    let embedded: EmbeddedDatabase | undefined;
    let dir: string | undefined;
    if (!configured) {
      dir = await mkdtemp(path.join(os.tmpdir(), 'platform-api-test-'));
      embedded = await startEmbeddedPostgres({ dataDir: dir, database: 'platform_test', logger, persistent: false });
    }
    const dataSource = createDataSource(configured ?? embedded!.url);
    await dataSource.initialize();
    await runMigrations(dataSource, logger);
    return { dataSource, embedded, dir };
  })();
  return (await shared).dataSource;
}

/** Called once by the root hooks after the last test. */
export async function closeTestDataSource(): Promise<void> {
  if (!shared) return;
  const { dataSource, embedded, dir } = await shared;
  shared = undefined;
  await dataSource.destroy();
  await embedded?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** A fresh organization id per test, so tests never see each other's rows. */
let organizationCounter = 0;
export function newOrganizationId(): string {
  organizationCounter += 1;
  return String(1_000_000 + (process.pid % 10_000) * 1000 + organizationCounter);
}

/** Records a running execution of a manual start (as the API's execute records one), for tests below the API. */
export async function recordExecution(
  db: DataSource,
  options: { organizationId?: string; workflowId: string; parentExecutionId?: string },
): Promise<string> {
  const id = newExecutionId();
  await new ExecutionRepository(db.manager).insertIdempotent({
    id,
    organizationId: options.organizationId ?? '1',
    workflowId: options.workflowId,
    workflowKey: null,
    revision: 1,
    alias: null,
    inputs: {},
    trigger: { stepId: 'start', source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
    correlationKey: null,
    idempotencyKey: null,
    parentExecutionId: options.parentExecutionId ?? null,
    temporalNamespace: 'default',
    createdBy: null,
  });
  return id;
}
