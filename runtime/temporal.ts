/**
 * Resolves the Temporal the app (and tests) talk to:
 *  1. `address` (TEMPORAL_ADDRESS) when configured;
 *  2. else the Temporal CLI dev server, when a binary is available (`cliPath`,
 *     `temporal` on PATH, or the copy `@temporalio/testing` caches in the temp dir);
 *  3. else the in-memory stand-in (test/temporal-server), launched through its
 *     executable, with a warning: its executions do not survive a restart.
 * Local servers are started as child processes on a free port; `stop()` ends them.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';

export interface TemporalEndpoint {
  address: string;
  namespace: string;
  kind: 'configured' | 'cli' | 'stand-in';
  /** stops what we started; no-op for configured */
  stop(): Promise<void>;
}

export interface ResolveTemporalOptions {
  address?: string;
  namespace: string;
  cliPath?: string;
  onWarning?: (message: string) => void;
}

/** The stand-in's executables (Temporal CLI dev server and time-skipping test server look-alikes). */
export const STAND_IN_DEV_SERVER = path.resolve(__dirname, '../test/temporal-server/bin/temporal');
export const STAND_IN_TEST_SERVER = path.resolve(__dirname, '../test/temporal-server/bin/temporal-test-server');

export async function resolveTemporal(options: ResolveTemporalOptions): Promise<TemporalEndpoint> {
  if (options.address) {
    return { address: options.address, namespace: options.namespace, kind: 'configured', stop: async () => {} };
  }
  const cli = await findTemporalCli(options.cliPath);
  if (cli && realpathSync(cli) !== realpathSync(STAND_IN_DEV_SERVER)) return startDevServer(cli, options.namespace, 'cli');
  options.onWarning?.(
    'No TEMPORAL_ADDRESS and no Temporal CLI found: using the in-memory Temporal stand-in. Workflow executions will not survive a restart.',
  );
  return startDevServer(STAND_IN_DEV_SERVER, options.namespace, 'stand-in');
}

/** `cliPath`, else `temporal` on PATH, else the CLI `@temporalio/testing` downloaded earlier. */
export async function findTemporalCli(cliPath?: string): Promise<string | undefined> {
  if (cliPath) {
    if (!existsSync(cliPath)) throw new Error(`Temporal CLI not found at ${cliPath}`);
    return cliPath;
  }
  const onPath = await new Promise<string | undefined>((resolve) => {
    execFile('sh', ['-c', 'command -v temporal'], (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
  if (onPath) return onPath;
  try {
    const pkg = JSON.parse(readFileSync(require.resolve('@temporalio/testing/package.json'), 'utf8')) as { version: string };
    const cached = path.join(os.tmpdir(), `temporal-sdk-typescript-${pkg.version}`);
    if (existsSync(cached)) return cached;
  } catch {
    // no @temporalio/testing: no cached download
  }
  return undefined;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Launches a dev server (the Temporal CLI or the stand-in's look-alike) on a free port and waits until it serves. */
export async function startDevServer(executable: string, namespace: string, kind: 'cli' | 'stand-in'): Promise<TemporalEndpoint> {
  const port = await freePort();
  const args = ['server', 'start-dev', '--port', String(port), '--namespace', namespace, '--ip', '127.0.0.1', '--headless', '--log-level', 'warn'];
  const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, child, kind === 'cli' ? 30_000 : 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { address, namespace, kind, stop: () => stopChild(child) };
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Temporal server exited with code ${child.exitCode} before serving ${address}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Temporal server at ${address} did not start within ${timeoutMs} ms: ${String(lastError)}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
