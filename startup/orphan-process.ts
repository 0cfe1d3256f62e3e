/**
 * A pid file beside a child process's data, so that the next start can stop a copy that a
 * killed parent left running (holding its ports and its files). The pid is only signalled
 * when that process's command line still names the data (Linux `/proc`; elsewhere nothing
 * is stopped), so a recycled pid is never hit.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

export function writePidFile(pidFile: string, pid: number | undefined): void {
  if (pid !== undefined) writeFileSync(pidFile, `${pid}\n`);
}

export function removePidFile(pidFile: string): void {
  rmSync(pidFile, { force: true });
}

/** Stops the process named in `pidFile` if its command line includes `marker`; resolves whether one was stopped. */
export async function stopOrphan(pidFile: string, marker: string, graceMs = 5000): Promise<boolean> {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 1 || !commandLineOf(pid)?.includes(marker)) {
    removePidFile(pidFile);
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  removePidFile(pidFile);
  return true;
}

function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
