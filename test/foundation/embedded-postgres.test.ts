import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/database';
import { captureLogger } from '../support/logger';

describe('embedded PostgreSQL', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-api-embedded-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('starts a real server, runs migrations, and keeps data across a restart', async () => {
    const { logger } = captureLogger();
    const config = { dataDir, databaseUrl: undefined, migrateOnStart: true };

    const first = await openDatabase(config, logger);
    try {
      assert.equal(first.embedded, true);
      const [{ server_version: version }] = await first.dataSource.query('SHOW server_version');
      assert.match(version, /^\d+/);
      const migrationsTable = await first.dataSource.query(`SELECT to_regclass('public.migrations') AS name`);
      assert.equal(migrationsTable[0].name, 'migrations');
      await first.dataSource.query('CREATE TABLE kept (id int PRIMARY KEY, note text)');
      await first.dataSource.query(`INSERT INTO kept VALUES (1, 'survives restarts')`);
    } finally {
      await first.close();
    }

    const second = await openDatabase(config, logger);
    try {
      const rows = await second.dataSource.query('SELECT note FROM kept WHERE id = 1');
      assert.deepEqual(rows, [{ note: 'survives restarts' }]);
    } finally {
      await second.close();
    }
  });
});
