/**
 * The service's own keys: the JWT verification key, the key of the tokens the
 * service mints itself (AUTH_SERVICE_KEY, else derived from the encryption
 * key) and the config-entry encryption key. Configured values win; with none configured, development
 * keys are generated once, kept in `<DATA_DIR>/dev-secrets.json` (mode 0600)
 * and a warning says so, so tokens from `npm run token` keep working across
 * restarts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuthKeys } from '../api/http/auth';
import { deriveServiceKey } from '../api/http/service-tokens';
import { decodeEncryptionKey, type AppConfig } from '../config/config';
import type { Logger } from '../config/logger';

export interface ServiceSecrets {
  auth: AuthKeys;
  /** 32-byte AES-256-GCM key for secret config values. */
  encryptionKey: Buffer;
  /** HS256 key of service tokens (api/http/service-tokens.ts). */
  serviceKey: Uint8Array;
}

interface DevSecretsFile {
  jwtSecret: string;
  configEncryptionKey: string;
}

type SecretsConfig = Pick<AppConfig, 'authJwtSecret' | 'authJwksUrl' | 'configEncryptionKey' | 'dataDir'> &
  Partial<Pick<AppConfig, 'authServiceKey'>>;

export async function resolveServiceSecrets(config: SecretsConfig, logger?: Logger): Promise<ServiceSecrets> {
  const needsDevJwt = !config.authJwtSecret && !config.authJwksUrl;
  const needsDevKey = !config.configEncryptionKey;
  const dev = needsDevJwt || needsDevKey ? await loadOrCreateDevSecrets(config.dataDir) : undefined;
  const file = devSecretsPath(config.dataDir);
  if (needsDevJwt) logger?.warn({ file }, 'AUTH_JWT_SECRET and AUTH_JWKS_URL are unset: using a generated development signing key');
  if (needsDevKey) logger?.warn({ file }, 'CONFIG_ENCRYPTION_KEY is unset: using a generated development encryption key');

  const auth: AuthKeys = config.authJwksUrl
    ? { kind: 'jwks', url: config.authJwksUrl }
    : { kind: 'hs256', secret: new TextEncoder().encode(config.authJwtSecret ?? dev!.jwtSecret) };
  const encryptionKey = decodeEncryptionKey(config.configEncryptionKey ?? dev!.configEncryptionKey)!;
  const serviceKey = config.authServiceKey ? new TextEncoder().encode(config.authServiceKey) : deriveServiceKey(encryptionKey);
  return { auth, encryptionKey, serviceKey };
}

export function devSecretsPath(dataDir: string): string {
  return path.join(dataDir, 'dev-secrets.json');
}

async function loadOrCreateDevSecrets(dataDir: string): Promise<DevSecretsFile> {
  const file = devSecretsPath(dataDir);
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<DevSecretsFile>;
    if (typeof parsed.jwtSecret === 'string' && typeof parsed.configEncryptionKey === 'string') {
      return { jwtSecret: parsed.jwtSecret, configEncryptionKey: parsed.configEncryptionKey };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const secrets: DevSecretsFile = {
    jwtSecret: randomBytes(32).toString('base64url'),
    configEncryptionKey: randomBytes(32).toString('base64'),
  };
  await mkdir(dataDir, { recursive: true });
  // 'wx' fails if another process created the file first; then read theirs.
  try {
    await writeFile(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDevSecrets(dataDir);
    throw error;
  }
}
