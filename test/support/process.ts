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
