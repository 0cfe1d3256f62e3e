/**
 * `npm run test:faults`: the production shape (startup/cluster: PostgreSQL, the
 * Temporal server on it, 2 API replicas behind the front, 2 workers) under
 * steady load while a worker, an API replica, the Temporal server and
 * PostgreSQL each fail in turn (./scenario.ts: the load, the faults and the checks).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client as PgClient } from 'pg';
import { mintToken } from '../../api/http/auth';
import { childProcessEnvironment } from '../../config/config';
import { createLogger } from '../../config/logger';
import { startCluster, type Cluster } from '../../startup/cluster/cluster';
import { apiClient, countingServer, defineWorkloads, runFaultScenario, type ApiCall, type CountingServer } from './scenario';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('production shape under faults', function () {
  this.timeout(20 * 60_000);
  const logger = createLogger('warn');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'platform-faults-'));
  const secret = randomBytes(32).toString('hex');
  let cluster: Cluster;
  let counter: CountingServer;
  let token: string;
  let api: ApiCall;
  let webhookPath: string;
  const pgClients: PgClient[] = [];

  before(async () => {
    counter = await countingServer();
    cluster = await startCluster({
      dir,
      apiReplicas: 2,
      workers: 2,
      port: 0,
      temporalPort: 0,
      namespace: 'default',
      maxBodyBytes: 1024 * 1024,
      logger,
      appEnv: {
        ...childProcessEnvironment(),
        DATA_DIR: dir,
        AUTH_JWT_SECRET: secret,
        CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        BOOTSTRAP_ADMINS: '1:1',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '2000',
      },
    });
    token = await mintToken({ userId: '1', organizationId: '1', userType: 'person', secret: Buffer.from(secret) });
    api = apiClient(cluster.frontUrl, token);
    webhookPath = await defineWorkloads(api, counter.url);
  });

  after(async () => {
    for (const client of pgClients) await client.end().catch(() => undefined);
    await cluster?.stop();
    await counter?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses and duplicates nothing through worker, replica, Temporal and PostgreSQL faults', async () => {
    await runFaultScenario({
      api,
      counter,
      webhookPath,
      token,
      pgClients,
      shape: {
        title: 'production shape under faults (2 API replicas, 2 workers, Temporal server on PostgreSQL)',
        frontUrl: cluster.frontUrl,
        temporalAddress: cluster.temporalAddress,
        databaseUrl: cluster.databaseUrl,
        faults: {
          worker: {
            name: 'worker SIGKILL, then a new worker',
            inject: async () => {
              await cluster.workers[0].kill();
              await sleep(2000);
              await cluster.restartWorker(0);
            },
          },
          api: {
            name: 'API replica SIGKILL, then restarted',
            inject: async () => {
              await cluster.apis[0].kill();
              await sleep(2000);
              await cluster.restartApi(0);
            },
          },
        },
        restartTemporal: (options) => cluster.restartTemporal(options),
        restartPostgres: (options) => cluster.restartPostgres(options),
      },
    });
  });
});
