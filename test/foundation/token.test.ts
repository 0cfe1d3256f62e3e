import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTokenVerifier } from '../../api/http/auth';
import { parseConfig } from '../../config/config';
import { devSecretsPath, resolveServiceSecrets } from '../../startup/service-secrets';
import { captureLogger } from '../support/logger';
import { runScript } from '../support/process';

describe('npm run token', function () {
  this.timeout(30_000);
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-api-token-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('prints a token that the service verifies with the same development key', async () => {
    const result = await runScript('bin/token.ts', {
      env: { DATA_DIR: dataDir },
      args: ['--user', '12', '--org', '34', '--type', 'service_account'],
    });
    assert.equal(result.code, 0, result.stderr);
    const token = result.stdout.trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);

    // The service resolves the very key the command generated and kept under DATA_DIR.
    const log = captureLogger();
    const secrets = await resolveServiceSecrets(parseConfig({ DATA_DIR: dataDir }), log.logger);
    assert.ok(
      log.lines.some((line) => line.includes('development signing key')),
      'warns about the development key',
    );
    assert.equal((await stat(devSecretsPath(dataDir))).mode & 0o777, 0o600);
    const auth = await createTokenVerifier(secrets.auth).verify(token);
    assert.deepEqual(auth, { userId: '12', organizationId: '34', userType: 'service_account' });
  });

  it('signs with AUTH_JWT_SECRET when it is configured', async () => {
    const secret = 's'.repeat(40);
    const result = await runScript('bin/token.ts', {
      env: { DATA_DIR: dataDir, AUTH_JWT_SECRET: secret },
      args: ['--user', '1', '--org', '1'],
    });
    assert.equal(result.code, 0, result.stderr);
    const verifier = createTokenVerifier({ kind: 'hs256', secret: new TextEncoder().encode(secret) });
    assert.equal((await verifier.verify(result.stdout.trim())).userType, 'person');
  });

  it('explains its usage when arguments are missing or wrong', async () => {
    const missing = await runScript('bin/token.ts', { env: { DATA_DIR: dataDir }, args: ['--user', '1'] });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /usage: npm run token/);
    const badType = await runScript('bin/token.ts', { env: { DATA_DIR: dataDir }, args: ['--user', '1', '--org', '1', '--type', 'robot'] });
    assert.equal(badType.code, 2);
    assert.match(badType.stderr, /--type must be person or service_account/);
  });
});
