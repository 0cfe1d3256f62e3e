/**
 * `scripts/containers/compose up|down|ps`: docker-compose.yml run by ./compose.ts with podman, with
 * the variables of a `.env` file beside it (as `docker compose` reads them) under the environment's.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ComposeProject, podman } from './compose';
import { ROOT } from '../support/process';

function dotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const entries: Array<[string, string]> = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[1], match[2].replace(/^(['"])(.*)\1$/, '$2')]);
  return Object.fromEntries(entries);
}

async function main(): Promise<void> {
  const [command = 'up'] = process.argv.slice(2);
  const file = path.join(ROOT, 'docker-compose.yml');
  // eslint-disable-next-line no-restricted-properties -- the compose file's variables come from the environment, as docker compose reads them
  const env = { ...dotEnv(path.join(ROOT, '.env')), ...process.env };
  const limits = (env.CONTAINER_RUN_ARGS ?? '').split(' ').filter(Boolean);
  const project = new ComposeProject({
    file,
    project: env.COMPOSE_PROJECT_NAME ?? 'platform-api',
    env,
    runArgs: limits,
    lenient: command !== 'up',
    log: console.log,
  });
  if (command === 'up') {
    const started = Date.now();
    const readyAt = await project.up();
    for (const [what, ms] of Object.entries(readyAt)) console.log(`  ${what.padEnd(40)} after ${(ms / 1000).toFixed(1)} s`);
    await project.await('front', 'service_started');
    console.log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } else if (command === 'down') {
    await project.down({ volumes: process.argv.includes('--volumes') });
  } else if (command === 'ps') {
    console.log(await podman(['ps', '-a', '--filter', `label=io.podman.compose.project=${env.COMPOSE_PROJECT_NAME ?? 'platform-api'}`]));
  } else {
    throw new Error(`usage: scripts/containers/compose up|down [--volumes]|ps (got ${command})`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
