/**
 * Where the benches' CPU goes, from Linux /proc (empty or NaN elsewhere): the processes that
 * descend from this one, each counted for the nearest component on its way up (a helper such as
 * tsx's esbuild counts for the component it serves), and this process's own threads by name (the
 * API and the worker share its main thread; the Temporal SDK runs workflows on a worker thread).
 * Used by end-to-end.bench.ts (with end-to-end-server-limit.ts) and scale-out.bench.ts.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';

/** USER_HZ is 100 on Linux: a tick is 10 ms. */
const TICK_MS = 10;

interface ProcessTicks {
  ppid: number;
  /** utime + stime + cutime + cstime (reaped children's included). */
  ticks: number;
  cmdline: string;
}

/** The processes on this machine now; a process that ends while they are listed is left out. */
function processes(): Map<number, ProcessTicks> {
  const found = new Map<number, ProcessTicks>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const fields = statFields(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      const ticks = [11, 12, 13, 14].reduce((total, i) => total + Number(fields[i]), 0);
      found.set(Number(entry), { ppid: Number(fields[1]), ticks, cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // the process ended while we listed it
    }
  }
  return found;
}

/** The fields of a stat(5) line after the command (state, ppid, …): utime and stime are 11 and 12 of them. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU ms by component of every process descending from this one (this process included) that
 * `componentOf` names, or whose nearest named ancestor it names; processes below `exceptPid`
 * (a client measured apart) do not count.
 */
export function cpuByComponent<C extends string>(
  componentOf: (pid: number, cmdline: string) => C | undefined,
  exceptPid?: number,
): Map<C, number> {
  const totals = new Map<C, number>();
  if (!existsSync('/proc/self/stat')) return totals;
  const all = processes();
  for (const [pid, { ticks }] of all) {
    let found: C | undefined;
    for (let at = pid, hops = 0; at > 1 && hops < 64; at = all.get(at)?.ppid ?? 0, hops++) {
      if (at === exceptPid) break;
      const named = all.get(at);
      found ??= named && componentOf(at, named.cmdline);
      if (at === process.pid) {
        if (found) totals.set(found, (totals.get(found) ?? 0) + ticks * TICK_MS);
        break;
      }
    }
  }
  return totals;
}

/**
 * CPU ms (user + system) of this process's threads by name: `MainThread` (the event loop: the
 * API, activities, the SDK's bridge), `WorkerThread` (Node worker threads: the SDK's workflow
 * thread, code-exec's pool), `V8Worker` (garbage collection, compilation), `tokio-runtime-w` (the
 * SDK's Rust core), and so on. Threads that ended are not counted.
 */
export function threadCpuMs(): Map<string, number> {
  const totals = new Map<string, number>();
  if (!existsSync('/proc/self/task')) return totals;
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = statFields(stat);
      totals.set(name, (totals.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended while we listed it
    }
  }
  return totals;
}

/** `after - before` for every key of either (what was spent meanwhile). */
export function spent<K>(before: Map<K, number>, after: Map<K, number>): Map<K, number> {
  const result = new Map<K, number>();
  for (const key of new Set([...before.keys(), ...after.keys()])) result.set(key, (after.get(key) ?? 0) - (before.get(key) ?? 0));
  return result;
}

/**
 * The machine's CPU time so far, in ms summed over its cores: `stolen` is what the hypervisor gave
 * other guests while this one wanted to run (/proc/stat's steal column; 0 on bare metal), `all`
 * every column. A run whose `stolen` share is high ran on a busy host: its figures swing.
 */
export function machineCpuMs(): { stolen: number; all: number } {
  if (!existsSync('/proc/stat')) return { stolen: Number.NaN, all: Number.NaN };
  const columns = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice: guest time is counted in user already.
  const all = columns.slice(0, 8).reduce((total, value) => total + value, 0);
  return { stolen: (columns[7] ?? 0) * TICK_MS, all: all * TICK_MS };
}
