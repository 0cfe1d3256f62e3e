/**
 * `npm run lint:openapi`: the service's OpenAPI document (startup/openapi-document.ts,
 * the same document GET /openapi.json serves) linted with Redocly's recommended
 * rules (redocly.yaml). Offline: the document is written to a temporary file, the
 * CLI is the installed devDependency, and its telemetry and update check are off.
 * The exit code is Redocly's (non-zero on any error).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceOpenApiDocument } from '../startup/openapi-document';

const ROOT = path.resolve(__dirname, '..');

/** Extra arguments go to `redocly lint` (default: `--format stylish`, one line per problem). */
function main(args: string[]): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(serviceOpenApiDocument(), null, 2));
    const cli = require.resolve('@redocly/cli/bin/cli.js', { paths: [ROOT] });
    const result = spawnSync(
      process.execPath,
      [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), ...(args.length > 0 ? args : ['--format', 'stylish'])],
      {
        stdio: 'inherit',
        // eslint-disable-next-line no-restricted-properties -- passing the environment through to the linter, not reading configuration
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
      },
    );
    if (result.error) throw result.error;
    return result.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main(process.argv.slice(2));
