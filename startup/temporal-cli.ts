/**
 * Finding a Temporal CLI binary (the real development server with its Web UI),
 * in this order:
 *  1. `TEMPORAL_CLI_PATH`;
 *  2. `temporal` on PATH;
 *  3. the pinned copy `scripts/install-temporal-cli` builds into `.tools/`;
 *  4. the copy `@temporalio/testing` downloaded earlier into the temp folder;
 *  5. on a machine that can reach Temporal's download site, a fresh download
 *     through `@temporalio/testing` (bounded: an unreachable site is noticed
 *     within seconds, a slow download gives up after a few minutes);
 *  6. on a machine with Go, a build of the pinned release by `scripts/install-temporal-cli`
 *     (minutes, once: the binary lands in `.tools/`, where step 3 finds it next time).
 */
import { execFile, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../config/project-root';

/** The release `scripts/install-temporal-cli` builds (Server 1.29.1, Web UI 2.42.1). */
export const PINNED_CLI_VERSION = 'v1.5.1';
// From the project root, so the compiled code (dist/, or a bench's build) finds the same tools.
const PROJECT_TOOLS = path.join(projectRoot(), '.tools');
const INSTALL_SCRIPT = path.join(projectRoot(), 'scripts', 'install-temporal-cli');
const DOWNLOAD_HOST = 'temporal.download';

/** The pinned CLI in `.tools/` if built, else any other version built there. */
export function projectBuiltCli(toolsDir = PROJECT_TOOLS): string | undefined {
  const pinned = path.join(toolsDir, `temporal-cli-${PINNED_CLI_VERSION}`, 'temporal');
  if (existsSync(pinned)) return pinned;
  const others = existsSync(toolsDir)
    ? readdirSync(toolsDir)
        .filter((name) => name.startsWith('temporal-cli-'))
        .sort()
        .reverse()
    : [];
  return others.map((name) => path.join(toolsDir, name, 'temporal')).find((candidate) => existsSync(candidate));
}

/** Where `@temporalio/testing` caches the CLI it downloads (`$TMPDIR/temporal-sdk-typescript-<sdk version>`). */
function sdkDownloadedCliPath(): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(require.resolve('@temporalio/testing/package.json'), 'utf8')) as { version: string };
    return path.join(os.tmpdir(), `temporal-sdk-typescript-${pkg.version}`);
  } catch {
    return undefined; // no @temporalio/testing: nothing downloaded
  }
}

function onPath(command = 'temporal'): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', `command -v ${command}`], (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
}

/** A CLI already on this machine (steps 1 to 4), without downloading anything. */
export async function findTemporalCli(cliPath?: string): Promise<string | undefined> {
  if (cliPath) {
    if (!existsSync(cliPath)) throw new Error(`Temporal CLI not found at ${cliPath} (TEMPORAL_CLI_PATH)`);
    return cliPath;
  }
  const found = (await onPath()) ?? projectBuiltCli();
  if (found) return found;
  const downloaded = sdkDownloadedCliPath();
  return downloaded && existsSync(downloaded) ? downloaded : undefined;
}

export interface DownloadOptions {
  /** The download site's host name (tests point it at a name that never resolves). */
  host?: string;
  /** How long to wait for the download site's name to resolve. */
  probeTimeoutMs?: number;
  /** How long the download itself may take. */
  downloadTimeoutMs?: number;
  onProgress?: (message: string) => void;
}

/**
 * Step 5: downloads the CLI through `@temporalio/testing` (which starts a server once it
 * has the binary; that server is stopped at once) and returns the cached binary's path.
 * Resolves `undefined` when the site cannot be reached or the download fails or is slow.
 */
export async function downloadTemporalCli(options: DownloadOptions = {}): Promise<string | undefined> {
  const target = sdkDownloadedCliPath();
  if (!target) return undefined;
  if (!(await resolvesWithin(options.host ?? DOWNLOAD_HOST, options.probeTimeoutMs ?? 3000))) return undefined;
  options.onProgress?.(`downloading the Temporal CLI through @temporalio/testing into ${target}`);
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const started = TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download' } } });
  const outcome = await withTimeout(started, options.downloadTimeoutMs ?? 180_000).catch(() => undefined);
  // A download that finished after the time-out still leaves a server behind: stop it then.
  if (outcome) await outcome.teardown();
  else void started.then((env) => env.teardown()).catch(() => undefined);
  return outcome && existsSync(target) ? target : undefined;
}

export interface BuildOptions {
  /** Each line the build prints (its progress), as it comes. */
  onProgress?: (message: string) => void;
  /** Stops the build (the service is asked to stop while it starts). */
  signal?: AbortSignal;
  /** The script to run (tests give another `.tools` target through its environment). */
  script?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Step 6: builds the pinned CLI from its Go module with `scripts/install-temporal-cli` and
 * resolves the binary's path (the script's last line); `undefined` without Go or when the
 * build fails (its last lines go to `onProgress`). Rejects when `signal` aborts it.
 */
export async function buildTemporalCli(options: BuildOptions = {}): Promise<string | undefined> {
  if (!(await onPath('go'))) return undefined;
  options.signal?.throwIfAborted();
  // Its own process group, so that a stop ends the whole build (the script, go and its compilers), not the script alone.
  const child = spawn(options.script ?? INSTALL_SCRIPT, [], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env, detached: true });
  const stopBuild = () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  options.signal?.addEventListener('abort', stopBuild, { once: true });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const lines = createInterface({ input: child.stderr });
  // Go names every module it downloads (hundreds): only the script's own lines are progress.
  lines.on('line', (line) => {
    if (!line.startsWith('go: downloading')) options.onProgress?.(line.trim());
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => options.signal?.removeEventListener('abort', stopBuild));
  options.signal?.throwIfAborted();
  const binary = stdout.trim().split('\n').pop();
  return code === 0 && binary && existsSync(binary) ? binary : undefined;
}

/** What the binary says of its version (`temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)`), or undefined. */
export function cliVersion(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: 10_000 }, (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
}

async function resolvesWithin(host: string, timeoutMs: number): Promise<boolean> {
  return withTimeout(lookup(host), timeoutMs).then(
    () => true,
    () => false,
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
