/** The execution routes over PostgreSQL alone, for tests of reads that never reach Temporal (a start would answer 503). */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { executionRoutes } from '../../api/executions';
import { loadConfig } from '../../config/config';
import { createTestApp, type TestApp } from '../support/app';

export function executionReadsApp(db: DataSource): TestApp {
  const unreachable = { options: { namespace: 'default' } } as unknown as Client;
  return createTestApp({
    routes: executionRoutes({
      config: { ...loadConfig(), publicBaseUrl: 'http://api.test' },
      dataSource: db,
      temporal: unreachable,
      encryptionKey: randomBytes(32),
    }),
  });
}
