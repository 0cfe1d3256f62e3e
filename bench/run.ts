/**
 * `npm run bench [-- name-filter]`: runs every `bench/*.bench.ts` (or the one named
 * `<filter>.bench.ts`, else those whose file name contains the filter) one after the
 * other and prints their figures.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../config/logger';
import { installTemporalRuntime } from '../worker/worker';
import type { BenchModule, BenchReport } from './report';

// Benchmarks print their figures; the Temporal SDK's own log lines would drown them.
installTemporalRuntime(createLogger('error'));

async function main(): Promise<void> {
  const filter = process.argv[2] ?? '';
  const benches = readdirSync(__dirname).filter((file) => file.endsWith('.bench.ts'));
  // A filter that names a bench exactly runs that one alone (`scale` is not also `scale-out`).
  const files = benches.includes(`${filter}.bench.ts`) ? [`${filter}.bench.ts`] : benches.filter((file) => file.includes(filter)).sort();
  let failed = 0;
  for (const file of files) {
    const mod = (await import(path.join(__dirname, file))) as BenchModule;
    const started = Date.now();
    const report: BenchReport = await mod.run();
    console.log(`\n## ${report.name}  (${file}, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    for (const [label, value] of Object.entries(report.figures)) console.log(`  ${label.padEnd(48)} ${value}`);
    if (report.table) {
      const widths = report.table.columns.map((column) => Math.max(column.length, 10));
      console.log(`  ${''.padEnd(48)} ${report.table.columns.map((column, i) => column.padStart(widths[i])).join('  ')}`);
      for (const [label, values] of report.table.rows) {
        console.log(`  ${label.padEnd(48)} ${values.map((value, i) => String(value).padStart(widths[i])).join('  ')}`);
      }
    }
    for (const target of report.targets ?? []) {
      console.log(`  ${target.met ? 'MET   ' : 'MISSED'} ${target.label}`);
      if (!target.met) failed += 1;
    }
  }
  if (files.length === 0) console.log(`no benchmark matches "${filter}"`);
  process.exit(failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
