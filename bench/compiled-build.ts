/**
 * The production image runs the server compiled (`node dist/…`), not under tsx: a bench that
 * measures the production shape (scale-out.bench.ts) starts the compiled code. This builds it
 * once per bench run with the project's own compiler settings (tsconfig.build.json; beside it
 * the bare workers the bench runs against it) into a folder of its own under
 * node_modules/.cache/, where the compiled files resolve the project's node_modules as dist/
 * does, and dist/ stays what `npm run build` made.
 *
 * Why it matters: tsx turns Node's source maps on in every thread, the Temporal SDK's workflow
 * threads included, and each function the SDK compiles per workflow promise then goes through
 * Node's source-map cache; production pays none of that.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../config/project-root';

const run = promisify(execFile);

export interface CompiledServer {
  /** The compiled tree, laid out as the project is (startup/, bin/, bench/, …). */
  dir: string;
  remove(): Promise<void>;
}

export async function compileForBench(): Promise<CompiledServer> {
  const cache = path.join(projectRoot(), 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(path.join(cache, 'platform-api-bench-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', path.join(__dirname, 'tsconfig.compiled.json'), '--outDir', dir], {
      cwd: projectRoot(),
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    await remove();
    // tsc says what is wrong on stdout.
    throw new Error(`compiling the server for the bench failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
  return { dir, remove };
}
