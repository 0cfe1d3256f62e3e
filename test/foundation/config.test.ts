import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../config/config';
import { runScript } from '../support/process';
import { LIMIT_SETTINGS } from '../../config/limits';
import { DEFINITION_LIMIT_SETTINGS, RUN_LIMIT_SETTINGS } from '../../workflows/engine';

describe('configuration', () => {
  it('has documented defaults', () => {
    const config = parseConfig({}, '/srv/app');
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.publicBaseUrl, 'http://localhost:8080');
    assert.equal(config.dataDir, path.resolve('/srv/app', '.data'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.temporalAddress, undefined);
    assert.equal(config.temporalNamespace, 'default');
    assert.equal(config.temporalTaskQueue, 'platform-workflows');
    assert.equal(config.temporalServer, 'auto');
    assert.equal(config.temporalUiPort, 8233);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bodyLimitBytes, 1024 * 1024);
    assert.equal(config.migrateOnStart, true);
    assert.deepEqual(config.bootstrapAdmins, []);
    assert.deepEqual(config.codeExec, {
      threads: Math.max(2, availableParallelism() - 1),
      threadsPerOrganization: Math.ceil(Math.max(2, availableParallelism() - 1) / 2),
      queuePerOrganization: 50,
      maxLogLines: 1000,
      maxLogBytes: 256 * 1024,
      maxResultBytes: 1024 * 1024,
      maxFetchBodyBytes: 5 * 1024 * 1024,
    });
  });

  it('reads every variable', () => {
    const config = parseConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      DATABASE_URL: 'postgres://u:p@db:5432/platform',
      DATA_DIR: '/var/lib/platform',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'prod',
      TEMPORAL_TASK_QUEUE: 'wf',
      TEMPORAL_SERVER: 'Stand-In',
      TEMPORAL_UI_PORT: '9233',
      AUTH_JWT_SECRET: 'x'.repeat(32),
      CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32),
      LOG_LEVEL: 'DEBUG',
      MIGRATE_ON_START: 'false',
      BOOTSTRAP_ADMINS: '1:1, 7:42',
      EGRESS_ALLOW_HOSTS: '*.example.com, 127.0.0.1',
      EGRESS_DENY_HOSTS: '169.254.169.254',
      EGRESS_ALLOW_CIDRS: '10.0.0.0/8, fd00::/8,127.0.0.1',
      CODE_EXEC_THREADS: '3',
      CODE_EXEC_THREADS_PER_ORGANIZATION: '3',
      CODE_EXEC_QUEUE_PER_ORGANIZATION: '7',
      CODE_EXEC_MAX_LOG_LINES: '10',
      CODE_EXEC_MAX_LOG_BYTES: '2048',
      CODE_EXEC_MAX_RESULT_BYTES: '4096',
      CODE_EXEC_MAX_FETCH_BYTES: '8192',
    });
    assert.deepEqual(config.egressAllowCidrs, ['10.0.0.0/8', 'fd00::/8', '127.0.0.1']);
    assert.deepEqual(config.codeExec, {
      threads: 3,
      threadsPerOrganization: 3,
      queuePerOrganization: 7,
      maxLogLines: 10,
      maxLogBytes: 2048,
      maxResultBytes: 4096,
      maxFetchBodyBytes: 8192,
    });
    // Unset, an organization's share follows the pool: half of it, rounded up.
    assert.equal(parseConfig({ CODE_EXEC_THREADS: '5' }).codeExec.threadsPerOrganization, 3);
    assert.deepEqual(config.egressAllowHosts, ['*.example.com', '127.0.0.1']);
    assert.deepEqual(config.egressDenyHosts, ['169.254.169.254']);
    assert.equal(config.port, 9000);
    assert.equal(config.publicBaseUrl, 'https://api.example.com');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/platform');
    assert.equal(config.dataDir, '/var/lib/platform');
    assert.equal(config.temporalAddress, 'temporal:7233');
    assert.equal(config.temporalServer, 'stand-in');
    assert.equal(config.temporalUiPort, 9233);
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.migrateOnStart, false);
    assert.deepEqual(config.bootstrapAdmins, [
      { userId: '1', organizationId: '1' },
      { userId: '7', organizationId: '42' },
    ]);
  });

  const invalid: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x/y' }],
    ['TEMPORAL_ADDRESS', { TEMPORAL_ADDRESS: 'http://temporal:7233' }],
    ['TEMPORAL_NAMESPACE', { TEMPORAL_NAMESPACE: 'bad namespace' }],
    ['TEMPORAL_SERVER', { TEMPORAL_SERVER: 'docker' }],
    ['TEMPORAL_UI_PORT', { TEMPORAL_UI_PORT: '0' }],
    ['AUTH_JWT_SECRET', { AUTH_JWT_SECRET: 'short' }],
    ['AUTH_JWKS_URL', { AUTH_JWKS_URL: 'not a url' }],
    ['CONFIG_ENCRYPTION_KEY', { CONFIG_ENCRYPTION_KEY: 'abc' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['MIGRATE_ON_START', { MIGRATE_ON_START: 'maybe' }],
    ['BOOTSTRAP_ADMINS', { BOOTSTRAP_ADMINS: '1:1,admin' }],
    ['BODY_LIMIT_BYTES', { BODY_LIMIT_BYTES: '-1' }],
    ['EGRESS_ALLOW_HOSTS', { EGRESS_ALLOW_HOSTS: 'api.example.com, http://bad' }],
    ['EGRESS_ALLOW_CIDRS', { EGRESS_ALLOW_CIDRS: '10.0.0.0/33' }],
    ['EGRESS_ALLOW_CIDRS', { EGRESS_ALLOW_CIDRS: 'intranet.local' }],
    ['CODE_EXEC_THREADS', { CODE_EXEC_THREADS: '0' }],
    ['CODE_EXEC_THREADS_PER_ORGANIZATION', { CODE_EXEC_THREADS_PER_ORGANIZATION: '0' }],
    ['CODE_EXEC_QUEUE_PER_ORGANIZATION', { CODE_EXEC_QUEUE_PER_ORGANIZATION: 'many' }],
    ['CODE_EXEC_MAX_RESULT_BYTES', { CODE_EXEC_MAX_RESULT_BYTES: 'lots' }],
  ];
  for (const [name, env] of invalid) {
    it(`rejects an invalid ${name} with a message naming it (${JSON.stringify(env[name])})`, () => {
      assert.throws(
        () => parseConfig(env),
        (error: unknown) => error instanceof ConfigError && error.problems.length === 1 && error.problems[0].startsWith(name),
      );
    });
  }

  it("reads the retention settings; Temporal's retention follows the execution retention unless set", () => {
    const defaults = parseConfig({});
    assert.equal(defaults.limits.executionRetentionDays, 30);
    assert.equal(defaults.limits.retentionSweepIntervalSeconds, 60);
    assert.equal(defaults.limits.retentionSweepBatch, 500);
    assert.equal(defaults.temporalRetentionDays, 30);
    assert.equal(parseConfig({ EXECUTION_RETENTION_DAYS: '7' }).temporalRetentionDays, 7);
    // Executions kept forever: Temporal cannot keep history forever; 30 days.
    assert.equal(parseConfig({ EXECUTION_RETENTION_DAYS: '0' }).temporalRetentionDays, 30);
    assert.equal(parseConfig({ EXECUTION_RETENTION_DAYS: '7', TEMPORAL_RETENTION_DAYS: '0' }).temporalRetentionDays, 0);
    for (const [name, value] of [
      ['EXECUTION_RETENTION_DAYS', '-1'],
      ['EXECUTION_RETENTION_DAYS', '3651'],
      ['TEMPORAL_RETENTION_DAYS', '1.5'],
      ['RETENTION_SWEEP_BATCH', '0'],
      ['RETENTION_SWEEP_INTERVAL_SECONDS', 'often'],
    ]) {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.some((problem) => problem.startsWith(name)),
        `${name}=${value}`,
      );
    }
  });

  it('reads the start:cluster settings, with their defaults and bounds', () => {
    assert.deepEqual(parseConfig({}).cluster, { apiReplicas: 2, workers: 3, temporalPort: 7233 });
    assert.deepEqual(parseConfig({ API_REPLICAS: '4', WORKERS: '1', TEMPORAL_PORT: '17233' }).cluster, {
      apiReplicas: 4,
      workers: 1,
      temporalPort: 17233,
    });
    // Membership ports sit 300 below the frontend and are stored as smallints: 1300 to 32000.
    for (const [name, value] of [
      ['API_REPLICAS', '0'],
      ['WORKERS', '33'],
      ['TEMPORAL_PORT', '40000'],
      ['TEMPORAL_PORT', '1000'],
    ]) {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.length === 1 && error.problems[0].startsWith(name),
        `${name}=${value}`,
      );
    }
  });

  it('reports every invalid variable at once', () => {
    assert.throws(
      () => parseConfig({ PORT: 'x', LOG_LEVEL: 'y' }),
      (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message) && /LOG_LEVEL/.test(error.message),
    );
  });

  it('stops the process with a message naming the variable', async function () {
    this.timeout(30_000);
    const result = await runScript('bin/start.ts', { env: { PORT: 'not-a-port' }, timeoutMs: 20_000 });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT must be an integer/);
  });

  it('names each engine limit by the variable that sets it (the engine cannot read config/limits.ts)', () => {
    for (const [name, env] of Object.entries({ ...DEFINITION_LIMIT_SETTINGS, ...RUN_LIMIT_SETTINGS }))
      assert.equal(LIMIT_SETTINGS[name as keyof typeof LIMIT_SETTINGS]?.env, env, name);
  });
});
