/**
 * `npm run bench [-- name-filter]`: runs every `bench/*.bench.ts` (or the one named
 * `<filter>.bench.ts`, else those whose file name contains the filter) one after the
 * other and prints their figures and targets; a missed target makes it exit 1.
 *
 * `npm run bench -- --smoke [name-filter]`: every bench at its smoke size (bench/size.ts),
 * for CI: a bench passes when it runs to the end and prints its figures, none of them NaN
 * and none a skip; targets are printed but not judged (they need a quiet machine and the
 * full size). It closes with the suite's lane line, `bench-smoke: N passed, N failed, 0 skipped`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../config/logger';
import { installTemporalRuntime } from '../worker/worker';
import type { BenchModule, BenchReport } from './report';
import { FULL_SIZE, type BenchOptions } from './size';

// Benchmarks print their figures; the Temporal SDK's own log lines would drown them.
installTemporalRuntime(createLogger('error'));

function print(report: BenchReport, file: string, seconds: number, judged: boolean): void {
  console.log(`\n## ${report.name}  (${file}, ${seconds.toFixed(1)} s)`);
  for (const [label, value] of Object.entries(report.figures)) console.log(`  ${label.padEnd(48)} ${value}`);
  if (report.table) {
    const widths = report.table.columns.map((column) => Math.max(column.length, 10));
    console.log(`  ${''.padEnd(48)} ${report.table.columns.map((column, i) => column.padStart(widths[i])).join('  ')}`);
    for (const [label, values] of report.table.rows) {
      console.log(`  ${label.padEnd(48)} ${values.map((value, i) => String(value).padStart(widths[i])).join('  ')}`);
    }
  }
  for (const target of report.targets ?? []) {
    const verdict = !judged ? 'SMOKE ' : target.met ? 'MET   ' : 'MISSED';
    console.log(`  ${verdict} ${target.label}`);
  }
}

/** Why a smoke run's report does not count as a run: a skip, or a figure that came out NaN. */
function smokeProblem(report: BenchReport): string | undefined {
  if ('skipped' in report.figures) return `skipped: ${String(report.figures.skipped)}`;
  const values: Array<[string, number | string]> = [
    ...Object.entries(report.figures),
    ...(report.table?.rows ?? []).flatMap(([label, row]) => row.map((value): [string, number | string] => [label, value])),
  ];
  const nan = values.find(([, value]) => typeof value === 'number' && Number.isNaN(value));
  return nan ? `the figure "${nan[0]}" is NaN` : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options: BenchOptions = args.includes('--smoke') ? { size: 'smoke' } : FULL_SIZE;
  const smoke = options.size === 'smoke';
  const first = args.filter((arg) => arg !== '--smoke')[0];
  const filter = first && !first.startsWith('--') ? first : '';
  const benches = readdirSync(__dirname).filter((file) => file.endsWith('.bench.ts'));
  // A filter that names a bench exactly runs that one alone (`scale` is not also `scale-out`).
  const files = benches.includes(`${filter}.bench.ts`) ? [`${filter}.bench.ts`] : benches.filter((file) => file.includes(filter)).sort();
  let missed = 0;
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const mod = (await import(path.join(__dirname, file))) as BenchModule;
    const started = Date.now();
    if (!smoke) {
      const report = await mod.run(options);
      print(report, file, (Date.now() - started) / 1000, true);
      missed += (report.targets ?? []).filter((target) => !target.met).length;
      continue;
    }
    try {
      const report = await mod.run(options);
      print(report, file, (Date.now() - started) / 1000, false);
      const problem = smokeProblem(report);
      if (problem) throw new Error(problem);
      passed += 1;
    } catch (error) {
      failed += 1;
      console.log(`  FAILED ${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  if (files.length === 0) console.log(`no benchmark matches "${filter}"`);
  if (smoke) console.log(`\nbench-smoke: ${passed} passed, ${failed} failed, 0 skipped`);
  process.exit(missed > 0 || failed > 0 || files.length === 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
