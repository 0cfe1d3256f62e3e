/**
 * Ends the servers this process started (embedded PostgreSQL, the Temporal dev
 * server) when this process dies, however it dies: SIGKILL, a V8 abort, an
 * out-of-memory kill. None of those runs any code of ours, so the ending is
 * done by a small watchdog process started beside the service: it reads the
 * pids to guard from a pipe, and when the pipe closes (the kernel closes it
 * when the service dies, whatever killed it) it signals each guarded process
 * that is still the one it was told about (same start time in `/proc`, so a
 * recycled pid is never hit), waits for them, and kills what is left.
 *
 * The watchdog is a session of its own, so a signal to the service's process
 * group (a terminal's Ctrl-C, a supervisor's group kill) does not end it before
 * it has done its job; it holds nothing else and exits once they are gone. Node
 * only: no `prctl(PR_SET_PDEATHSIG)` or `setpriv`, which not every image has.
 * The pid files checked at the next start (orphan-process.ts, embedded-postgres.ts)
 * remain the second line, for a watchdog killed too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** How long guarded processes get to stop after their signal, before SIGKILL. */
export const WATCHDOG_GRACE_MS = 10_000;

let watchdog: ChildProcess | undefined;

/** Guards `pid`: when this process dies, the watchdog sends it `signal` (then SIGKILL after the grace). */
export function guardChild(pid: number, signal: NodeJS.Signals): void {
  send(`watch ${pid} ${signal}\n`);
}

/** Stops guarding `pid` (it was stopped in order). */
export function forgetChild(pid: number): void {
  if (watchdog) send(`forget ${pid}\n`);
}

/** Guards the postmaster of the embedded PostgreSQL cluster in `clusterDir` (its pid is the first line of postmaster.pid); SIGINT is its fast shutdown. */
export function guardPostmaster(clusterDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  guardChild(pid, 'SIGINT');
  return pid;
}

function send(line: string): void {
  if (!watchdog || watchdog.exitCode !== null || watchdog.signalCode !== null) watchdog = startWatchdog();
  watchdog.stdin?.write(line);
}

function startWatchdog(): ChildProcess {
  const child = spawn(process.execPath, ['-e', watchdogSource()], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process running.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

/**
 * The watchdog's whole program, run by `node -e` from its source: it may use nothing from
 * this module's scope. Lines on stdin: `watch <pid> <signal>`, `forget <pid>`.
 */
function watchdogMain(graceMs: number): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require('node:fs') as typeof import('node:fs');
  const watched = new Map<number, { signal: NodeJS.Signals; started?: string }>();
  /** The process's start time (field 22 of /proc/<pid>/stat), or undefined where there is no /proc. */
  const startedAt = (pid: number): string | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    } catch {
      return undefined;
    }
  };
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const same = (pid: number, started?: string) => started === undefined || startedAt(pid) === started;
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Gone already.
    }
  };
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const [verb, pidText, name] = pending.slice(0, end).split(' ');
      pending = pending.slice(end + 1);
      const pid = Number(pidText);
      if (!Number.isInteger(pid) || pid <= 1) continue;
      if (verb === 'watch') watched.set(pid, { signal: name as NodeJS.Signals, started: startedAt(pid) });
      else if (verb === 'forget') watched.delete(pid);
    }
  });
  let ending = false;
  const endAll = () => {
    if (ending) return;
    ending = true;
    const targets = [...watched].filter(([pid, { started }]) => alive(pid) && same(pid, started));
    for (const [pid, entry] of targets) signal(pid, entry.signal);
    const deadline = Date.now() + graceMs;
    const check = () => {
      const left = targets.filter(([pid, { started }]) => alive(pid) && same(pid, started));
      if (left.length === 0) process.exit(0);
      if (Date.now() >= deadline) {
        for (const [pid] of left) signal(pid, 'SIGKILL');
        process.exit(0);
      }
      setTimeout(check, 100);
    };
    check();
  };
  process.stdin.on('end', endAll);
  process.stdin.on('close', endAll);
  process.stdin.on('error', endAll);
  // Signals meant for the service's group or terminal are not ours: the pipe says when to act.
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, () => undefined);
}

/** The watchdog's program as `node -e` runs it (a transpiler may wrap functions in a `__name` helper: a no-op there). */
export function watchdogSource(): string {
  return `const __name = (target) => target;\n(${watchdogMain.toString()})(${WATCHDOG_GRACE_MS});`;
}
