/**
 * The workflow kit (kit/):
 * - a 40-step graph of pure steps (deciders, set-variable, log) run locally by
 *   `runWorkflow`, p50 over 50 runs after warm-up: target under 20 ms;
 * - the cost of importing the kit as users load it (compiled JavaScript, one
 *   file per module as `npm run build` emits it), in a fresh Node process,
 *   median of 5: target under 300 ms. The sources are compiled per file with
 *   esbuild (what tsx uses) into .data/bench/kit, so no prior build is needed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { runWorkflow } from '../kit';
import { chain, trigger } from '../test/support/definitions';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const ROOT = path.resolve(__dirname, '..');
/** What the kit loads: its own modules and everything below them. */
const KIT_SOURCES = ['kit', 'workflows/engine', 'activities/plugins', 'activities/egress', 'activities/secrets', 'config'];

/** start ──▶ s1 ──▶ … ──▶ s40, cycling conditional, set-variable and log. */
function pureGraph(): Record<string, unknown> {
  const step = (i: number): Record<string, unknown> =>
    i % 3 === 0
      ? { type: 'decider', pluginType: 'conditional', config: { expression: 'variables.n >= 0', truePort: 'default' } }
      : i % 3 === 1
        ? { type: 'module', pluginType: 'set-variable', config: { path: 'n', value: '${{ variables.n + 1 }}' } }
        : { type: 'module', pluginType: 'log', config: { message: 'n is ${{ variables.n }}' } };
  const steps = chain(trigger(), ...Array.from({ length: 40 }, (_, i) => ({ id: `s${i + 1}`, ...step(i + 1) })));
  return { name: 'bench', path: '/bench', steps, variables: { n: { initialValue: 0 } } };
}

async function pureRunMs(runs: number): Promise<number> {
  const definition = pureGraph();
  const first = await runWorkflow({ definition, throwOnFailure: true });
  // Every step ran (not a short cut): 40 steps and the trigger, the counter at the number of set-variable steps.
  const completed = Object.values(first.steps).filter((step) => step.status === 'completed').length;
  if (completed !== 41 || first.variables.n !== 14)
    throw new Error(`the bench graph did not run whole: ${completed} steps, n=${String(first.variables.n)}`);
  for (let i = 0; i < 10; i++) await runWorkflow({ definition, throwOnFailure: true });
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await runWorkflow({ definition, throwOnFailure: true });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentile(samples, 50);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

async function importMs(processes: number): Promise<number> {
  const outdir = path.join(ROOT, '.data', 'bench', 'kit');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: KIT_SOURCES.flatMap((dir) => tsFiles(path.join(ROOT, dir))),
    outdir,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  const entry = path.join(outdir, 'kit', 'index.js');
  const script = `const t = process.hrtime.bigint(); require(${JSON.stringify(entry)}); process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;
  const samples = Array.from({ length: processes }, () => Number(execFileSync(process.execPath, ['-e', script], { cwd: ROOT }).toString()));
  return percentile(samples, 50);
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const pure = await pureRunMs(sized(options, 50, 5));
  const imported = await importMs(sized(options, 5, 1));
  return {
    name: 'workflow kit',
    figures: { '40-step pure graph, runWorkflow p50 ms': round(pure), 'import of the kit (fresh process, median) ms': round(imported) },
    targets: [
      { label: `40-step pure graph under 20 ms (p50 ${round(pure)} ms)`, met: pure < 20 },
      { label: `kit import under 300 ms (median ${round(imported)} ms)`, met: imported < 300 },
    ],
  };
}
