/**
 * Publish refuses a `code-exec` script in TypeScript (`language: ts`) that
 * does not parse, as it refuses any other definition it could not run: the
 * worker strips its types with esbuild before it runs
 * (activities/plugins/code-exec-typescript.ts), and esbuild cannot run in the
 * workflow sandbox, so this check lives at the API edge. The code is parsed as
 * the worker parses it: the body of an async function, which it must not
 * close itself. No type checking (neither engine does any).
 */
import { parse } from 'acorn';
import { transformSync } from 'esbuild';
import type { WorkflowDefinition } from '../../workflows/engine';
import type { FieldError } from '../http/errors';
import { escapePointer } from '../http/validation';
import { pathAsSent } from './declared-schemas';

const WRAPPER = '__codeExecScript__';

/** One error per TypeScript script that does not parse, at its path in the document as sent. */
export function typeScriptErrors(definition: WorkflowDefinition, body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const step of Object.values(definition.steps)) {
    const { code, language } = step.config ?? {};
    if (step.pluginType !== 'code-exec' || (language !== 'ts' && language !== 'typescript') || typeof code !== 'string') continue;
    const problem = typeScriptProblem(code);
    if (problem) errors.push({ path: pathAsSent(body, `/steps/${escapePointer(step.id)}/config/code`), message: problem });
  }
  return errors;
}

function typeScriptProblem(code: string): string | undefined {
  let output: string;
  try {
    output = transformSync(`async function ${WRAPPER}() {\n${code}\n}`, { loader: 'ts' }).code;
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors?.[0];
    if (!first) throw error;
    const where = first.location ? ` (line ${first.location.line - 1}, column ${first.location.column + 1})` : '';
    return `is not valid TypeScript: ${first.text}${where}`;
  }
  const program = parse(output, { ecmaVersion: 'latest', sourceType: 'script' });
  const [only] = program.body;
  if (program.body.length !== 1 || only.type !== 'FunctionDeclaration' || only.id?.name !== WRAPPER)
    return 'is not a function body: it closes a block it did not open';
  return undefined;
}
