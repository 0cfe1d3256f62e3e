import type { BenchOptions } from './size';

/** What one benchmark module reports: named figures, and targets checked against them. */
export interface BenchReport {
  name: string;
  /** Figures to print, e.g. `{ 'workflows/s': 142.3, 'p50 ms': 4.1 }`. */
  figures: Record<string, number | string>;
  /** Figures side by side, e.g. one column per Temporal server: `rows` are `[label, one value per column]`. */
  table?: { columns: string[]; rows: Array<[string, Array<number | string>]> };
  /** Targets the issue sets; a failed target is printed and makes `npm run bench` exit 1. */
  targets?: Array<{ label: string; met: boolean }>;
}

/** Every `bench/*.bench.ts` file exports `run`, which takes the run's size (bench/size.ts). */
export type BenchModule = { run: (options: BenchOptions) => Promise<BenchReport> };

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Runs `total` jobs with at most `concurrency` at a time: jobs per second, and each job's ms. */
export async function atConcurrency(
  total: number,
  concurrency: number,
  job: () => Promise<unknown>,
): Promise<{ perSecond: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const t0 = process.hrtime.bigint();
        await job();
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return { perSecond: total / (Number(process.hrtime.bigint() - started) / 1e9), latencies };
}

/** At most `limit` calls of the returned function run at once; the others queue in order. */
export function limiter(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: Array<() => void> = [];
  return async (work) => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    else active += 1;
    try {
      return await work();
    } finally {
      const wake = queue.shift();
      if (wake) wake();
      else active -= 1;
    }
  };
}
