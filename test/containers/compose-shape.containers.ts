/**
 * `npm run test:containers`: docker-compose.yml run with podman on the images
 * scripts/containers/build-images makes (PostgreSQL, Temporal's schema job, server and namespace
 * job, the migrations job, 2 API replicas behind the front, 2 workers), under the same load and
 * faults as `npm run test:faults` (test/faults/scenario.ts): a worker container and an API
 * replica's container killed (SIGKILL to their process, brought back by their restart policy),
 * the Temporal server's container and PostgreSQL's stopped and started again. Traffic stays on
 * this machine: the test reaches the containers on ports published on 127.0.0.1, and the workflows'
 * http steps reach the counting server on the podman network's gateway.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Client as PgClient } from 'pg';
import { mintToken } from '../../api/http/auth';
import { apiClient, countingServer, defineWorkloads, runFaultScenario, type ApiCall, type CountingServer } from '../faults/scenario';
import { ROOT } from '../support/process';
import { ComposeProject, podman } from './compose';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until the Temporal server behind `address` serves `namespace` again. */
async function temporalServes(address: string, namespace: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} did not serve ${namespace}: ${String(error)}`);
      await sleep(1000);
    }
  }
}

describe('the compose shape in containers, under faults', function () {
  this.timeout(30 * 60_000);
  const secret = randomBytes(32).toString('hex');
  const projectWith = (extraEnv: Record<string, string>) =>
    new ComposeProject({
      file: path.join(ROOT, 'docker-compose.yml'),
      project: 'platform-containers-test',
      env: {
        // eslint-disable-next-line no-restricted-properties -- the images the lane built (scripts/containers/test names them)
        ...process.env,
        AUTH_JWT_SECRET: secret,
        CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        POSTGRES_PASSWORD: 'platform',
        BOOTSTRAP_ADMINS: '1:1',
        LOG_LEVEL: 'warn',
        ...extraEnv,
      },
      loopbackPorts: true,
      extraPorts: { postgres: [5432] },
      replicas: { worker: 2 },
      // eslint-disable-next-line no-restricted-properties -- this machine's container limits, from scripts/containers/lib.sh
      runArgs: (process.env.CONTAINER_RUN_ARGS ?? '').split(' ').filter(Boolean),
    });
  let project = projectWith({});
  let counter: CountingServer;
  let token: string;
  let api: ApiCall;
  let webhookPath: string;
  let frontUrl: string;
  let startup: Record<string, number>;
  const pgClients: PgClient[] = [];

  before(async () => {
    await project.down({ volumes: true });
    await project.createNetwork();
    const gateway = await project.gateway();
    // The compose file passes EGRESS_ALLOW_CIDRS on: the workflows may call the gateway, nothing else private.
    project = projectWith({ EGRESS_ALLOW_CIDRS: `${gateway}/32` });
    const started = Date.now();
    startup = await project.up();
    await project.await('front', 'service_started');
    startup['everything up'] = Date.now() - started;
    // The gateway's address exists on this host once a container runs on the network.
    counter = await countingServer(gateway);
    frontUrl = `http://${await project.hostPort('front', 8080)}`;
    token = await mintToken({ userId: '1', organizationId: '1', userType: 'person', secret: Buffer.from(secret) });
    api = apiClient(frontUrl, token);
    // The front serves once nginx is up: wait for the first answer through it.
    for (let i = 0; i < 60 && (await api('GET', '/ready').catch(() => ({ status: 0 }))).status !== 200; i += 1) await sleep(1000);
    webhookPath = await defineWorkloads(api, counter.url);
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const service of ['front', 'api', 'worker', 'temporal'])
      console.log(`--- ${service}:\n${await project.logs(project.containerName(service), 25)}`);
  });

  after(async () => {
    for (const client of pgClients) await client.end().catch(() => undefined);
    if (process.env.KEEP_CONTAINERS !== '1') await project.down({ volumes: true }); // eslint-disable-line no-restricted-properties -- a debugging switch of the test
    await counter?.close();
  });

  it('starts each service after what it depends on, as the non-root users the images name', async () => {
    console.log('\n  compose shape start-up (ms after `up`, each dependency condition met)');
    for (const [what, ms] of Object.entries(startup)) console.log(`    ${what.padEnd(48)} ${ms}`);
    for (const [service, user] of [
      ['api', 'node'],
      ['worker', 'node'],
      ['temporal', 'temporal'],
      ['postgres', 'postgres'],
    ]) {
      assert.equal(await podman(['exec', project.containerName(service), 'id', '-un']), user, `${service} runs as ${user}`);
    }
    // Both roles from one image, with nothing in it but what runs.
    assert.deepEqual((await podman(['exec', project.containerName('api'), 'ls', '/app'])).split('\n'), [
      'dist',
      'docs',
      'node_modules',
      'package.json',
    ]);
    assert.equal(await podman(['exec', project.containerName('api'), 'ls', '/app/docs']), 'errors.md');
    const { devDependencies } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const installed = (
      await podman(['exec', project.containerName('worker'), 'sh', '-c', 'ls -d /app/node_modules/* /app/node_modules/@*/*'])
    ).split('\n');
    // A development dependency a production package needs too (protobufjs needs @types/node) stays, as `npm prune` keeps it.
    const production = new Set(
      (
        await podman(['exec', '-w', '/app', project.containerName('worker'), 'npm', 'ls', '--omit=dev', '--all', '--parseable']).catch(
          (e: { stdout?: string }) => e.stdout ?? '',
        )
      ).split('\n'),
    );
    const dev = Object.keys(devDependencies).filter(
      (name) => installed.includes(`/app/node_modules/${name}`) && !production.has(`/app/node_modules/${name}`),
    );
    assert.deepEqual(dev, [], 'no development dependencies in the image');
  });

  it('loses and duplicates nothing through worker, replica, Temporal and PostgreSQL faults', async () => {
    const temporalAddress = await project.hostPort('temporal', 7233);
    const postgres = await project.hostPort('postgres', 5432);
    /** Kills one container's process and waits until its restart policy has it running and healthy again. */
    const crashAndRecover = async (name: string) => {
      const before = await project.state(name);
      await project.crash(name);
      const deadline = Date.now() + 120_000;
      while ((await project.state(name)).restarts <= before.restarts || (await project.state(name)).status !== 'running') {
        if (Date.now() > deadline) throw new Error(`${name} was not restarted:\n${await project.logs(name)}`);
        await sleep(500);
      }
      await project.healthy(name);
    };
    await runFaultScenario({
      api,
      counter,
      webhookPath,
      token,
      pgClients,
      shape: {
        title: 'compose shape in containers under faults (2 API replicas, 2 workers, Temporal server on PostgreSQL, podman)',
        frontUrl,
        temporalAddress,
        databaseUrl: `postgres://platform:platform@${postgres}/platform`,
        faults: {
          worker: { name: 'worker container killed, restarted', inject: () => crashAndRecover(project.containerName('worker')) },
          api: { name: 'API replica container killed, restarted', inject: () => crashAndRecover(project.containerName('api')) },
        },
        restartTemporal: async ({ downMs }) => {
          await project.stop(project.containerName('temporal'));
          await sleep(downMs);
          await project.start(project.containerName('temporal'));
          await temporalServes(temporalAddress, 'default');
        },
        restartPostgres: async ({ downMs }) => {
          await project.stop(project.containerName('postgres'));
          await sleep(downMs);
          await project.start(project.containerName('postgres'));
          await project.healthy(project.containerName('postgres'));
        },
      },
    });
  });
});
