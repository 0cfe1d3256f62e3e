/**
 * `code-exec` `language: ts`: the script's type annotations are stripped by
 * esbuild (no type checking, as the compatible engine does) and the
 * JavaScript left runs in the same sandbox, under the same limits, as any
 * other script. The code is a function body (top-level `return` and `await`),
 * which esbuild does not accept as a module, so it is transpiled inside an
 * async function whose wrapper is then cut off again. The size of what is
 * transpiled is bounded by the definition's own limits (a config string).
 *
 * Publish refuses a script that does not parse (api/workflows/typescript-scripts.ts)
 * and templates in one (workflows/engine/validate-unsupported.ts); a revision
 * that reaches here anyway fails the step (`PLUGIN_CONFIG_INVALID`, with
 * esbuild's line and column).
 */
import { parse } from 'acorn';
import { transform } from 'esbuild';
import { ApplicationFailure } from '@temporalio/common';

const WRAPPER = '__codeExecScript__';
const OPEN = `async function ${WRAPPER}() {\n`;
const CLOSE = '\n}';

export function isTypeScript(language: unknown): boolean {
  return language === 'ts' || language === 'typescript';
}

/** The script as JavaScript: its types stripped, its statements as written. */
export async function stripTypes(code: string): Promise<string> {
  let output: string;
  try {
    output = (await transform(OPEN + code + CLOSE, { loader: 'ts', sourcemap: false })).code;
  } catch (error) {
    throw ApplicationFailure.nonRetryable(`code-exec "code" is not valid TypeScript: ${describe(error)}`, 'PLUGIN_CONFIG_INVALID');
  }
  // Code that closes the wrapper itself (`}` … `{`) would leave statements outside it: not a function body.
  const program = parse(output, { ecmaVersion: 'latest', sourceType: 'script' });
  const [only] = program.body;
  if (program.body.length !== 1 || only.type !== 'FunctionDeclaration' || only.id?.name !== WRAPPER)
    throw ApplicationFailure.nonRetryable(
      'code-exec "code" is not a function body: it closes a block it did not open',
      'PLUGIN_CONFIG_INVALID',
    );
  return output.slice(only.body.start + 1, only.body.end - 1);
}

/** esbuild's first error, its line counted in the script (the wrapper adds one line). */
function describe(error: unknown): string {
  const errors = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors;
  const first = errors?.[0];
  if (!first) return error instanceof Error ? error.message : String(error);
  return first.location ? `${first.text} (line ${first.location.line - 1}, column ${first.location.column + 1})` : first.text;
}
