/**
 * Runs the project's own scripts as child processes (the way an operator
 * does), with extra environment variables on top of the current ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** The environment handed to children: ours, minus anything that would point them at shared state. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // eslint-disable-next-line no-restricted-properties -- passing the environment through to a child, not reading configuration
  return { ...process.env, LOG_LEVEL: 'info', ...extra };
}

export function spawnScript(script: string, options: { env?: Record<string, string>; args?: string[] } = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...(options.args ?? [])], {
    cwd: ROOT,
    env: childEnv(options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A service started as a child process (`bin/start.ts` and friends), once it logged "API listening". */
export interface ListeningService {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `script` and waits until it logs "API listening" (rejects with its output when it exits or `timeoutMs` passes first). */
export async function startListening(script: string, env: Record<string, string>, timeoutMs: number): Promise<ListeningService> {
  const child = spawnScript(script, { env });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not listen within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"API listening"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, exited };
}

export interface ScriptResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runScript(
  script: string,
  options: { env?: Record<string, string>; args?: string[]; timeoutMs?: number } = {},
): Promise<ScriptResult> {
  const child = spawnScript(script, options);
  return collect(child, options.timeoutMs ?? 30_000);
}

export function collect(child: ChildProcess, timeoutMs: number): Promise<ScriptResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    });
  });
}
