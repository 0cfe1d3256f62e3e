/**
 * `npm run token -- --user <id> --org <id> [--type person|service_account] [--expires 12h]`
 * prints a bearer token that the running service accepts (same configuration,
 * same development key under DATA_DIR).
 */
import { parseArgs } from 'node:util';
import { mintToken } from '../api/http/auth';
import { resolveServiceSecrets } from '../startup/service-secrets';
import { loadConfigOrExit } from './main';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      user: { type: 'string' },
      org: { type: 'string' },
      type: { type: 'string', default: 'person' },
      expires: { type: 'string', default: '12h' },
    },
  });
  const usage = 'usage: npm run token -- --user <id> --org <id> [--type person|service_account] [--expires 12h]';
  if (!values.user || !values.org || !/^[1-9]\d*$/.test(values.user) || !/^[1-9]\d*$/.test(values.org)) fail(usage);
  if (values.type !== 'person' && values.type !== 'service_account') fail(`--type must be person or service_account\n${usage}`);

  const config = loadConfigOrExit();
  const secrets = await resolveServiceSecrets(config);
  if (secrets.auth.kind !== 'hs256') fail('AUTH_JWKS_URL is set: tokens come from your identity provider, not from this command.');
  const token = await mintToken({
    userId: values.user,
    organizationId: values.org,
    userType: values.type,
    secret: secrets.auth.secret,
    expiresIn: values.expires,
    // The claims the service checks when configured, so the token is accepted.
    audience: config.authJwtAudience,
    issuer: config.authJwtIssuer,
  });
  process.stdout.write(token + '\n');
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
