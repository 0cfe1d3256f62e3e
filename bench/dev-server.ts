/**
 * The real Temporal CLI dev server as `npm start` starts it (startup/temporal.ts resolveTemporal:
 * its dynamic config flags and a SQLite file), headless, in a temporary directory: the server the
 * benches that compare with `npm start` run on. Undefined when no real CLI is on this machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config/config';
import { findRealTemporalCli, resolveTemporal, type TemporalEndpoint } from '../startup/temporal';

export interface BenchDevServer {
  temporal: TemporalEndpoint;
  /** The CLI binary it runs. */
  cli: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

export async function startBenchDevServer(name: string): Promise<BenchDevServer | undefined> {
  const config = loadConfig();
  const cli = await findRealTemporalCli(config.temporalCliPath);
  if (!cli) return undefined;
  const dir = await mkdtemp(path.join(os.tmpdir(), `bench-${name}-`));
  const temporal = await resolveTemporal({
    namespace: config.temporalNamespace,
    cliPath: cli,
    server: 'cli',
    download: false,
    dbFilename: path.join(dir, 'dev-server.sqlite'),
  });
  return {
    temporal,
    cli,
    async stop() {
      await temporal.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
