/**
 * How big a bench run is. `full` is what the targets are measured at (a quiet machine, minutes);
 * `smoke` (`npm run bench -- --smoke`) runs the same code paths at a size that takes seconds, so
 * CI proves every bench still starts, runs and prints its figures without judging them.
 */
export type BenchSize = 'full' | 'smoke';

export interface BenchOptions {
  size: BenchSize;
}

export const FULL_SIZE: BenchOptions = { size: 'full' };

/** The full figure, or the smoke one. */
export function sized(options: BenchOptions, full: number, smoke: number): number {
  return options.size === 'smoke' ? smoke : full;
}
