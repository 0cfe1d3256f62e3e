/**
 * The processes of the production shape, each a child with its own log file:
 * started, watched, killed (the fault test does that on purpose) and stopped
 * in order. A child that exits on its own is reported, never restarted
 * behind the operator's back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface ChildSpec {
  /** Short name, also the log file's name (`api-1`, `worker-2`, `temporal-server`). */
  name: string;
  command: string;
  args: string[];
  /** The whole environment of the process; unset: this process's own. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface RunningChild {
  readonly spec: ChildSpec;
  readonly process: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code (or signal) when the process ends, whoever ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (fault injection); resolves once the process is gone. */
  kill(): Promise<void>;
}

export function startChild(
  spec: ChildSpec,
  logDir: string,
  onUnexpectedExit?: (child: RunningChild, code: number | null) => void,
): RunningChild {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${spec.name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  log.write(`\n--- ${new Date().toISOString()} starting ${spec.command} ${spec.args.join(' ')}\n`);
  // Its own process group: a Ctrl-C in the terminal reaches the orchestrator only, which stops children in order.
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let expected = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      log.end(`--- ${new Date().toISOString()} exited (${signal ?? code})\n`);
      resolve({ code, signal });
    });
  });
  const running: RunningChild = {
    spec,
    process: child,
    logFile,
    exited,
    async stop(graceMs = 15_000) {
      expected = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      expected = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  void exited.then(({ code }) => {
    if (!expected) onUnexpectedExit?.(running, code);
  });
  return running;
}
