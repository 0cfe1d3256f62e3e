/**
 * `diff <file> [--alias NAME | --revision N]`: whether a published revision
 * still has the text of the file in git. The server keeps the text each
 * revision was published from (its source); this compares it with the file,
 * byte for byte, and prints "same" (exit 0) or a unified diff from the
 * revision to the file (exit 1). Without --alias or --revision, the revision
 * `latest` points at. A revision published before sources were kept has no
 * text to compare: said, exit 1.
 */
import { readFileSync } from 'node:fs';
import { keyOf } from '../children';
import { parseDocument } from '../load';
import { ApiRefusal, type ApiClient } from './client';
import { CliError, EXIT, type Output } from './output';
import { unifiedDiff } from './unified-diff';

export interface DiffOptions {
  alias?: string;
  revision?: string;
}

export async function diffCommand(api: ApiClient, file: string | undefined, options: DiffOptions, io: Output): Promise<number> {
  if (file === undefined) throw new CliError('diff needs a definition file', EXIT.usage);
  if (options.alias !== undefined && options.revision !== undefined)
    throw new CliError('diff takes --alias or --revision, not both', EXIT.usage);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      EXIT.usage,
    );
  }
  const value = parseDocument(text).value;
  // The key as publish takes it: the file's own, else its name (a file that does not parse is still compared as text).
  const key = keyOf(value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined, file);
  const workflow = `/workflows/definitions/${encodeURIComponent(key)}`;
  const revision = await revisionOf(api, workflow, options);
  let source: string;
  try {
    source = (await api.text(`${workflow}/revisions/${revision.number}/source`)).text;
  } catch (error) {
    if (error instanceof ApiRefusal && error.type === 'revision-source-not-kept') {
      io.err(`${key} revision ${revision.number} was published before sources were kept: no text to compare (publish ${file} to keep it)`);
      return EXIT.failed;
    }
    throw error;
  }
  const diff = unifiedDiff(source, text, { a: `${key} revision ${revision.number}${revision.via}`, b: file });
  if (diff === undefined) {
    io.out(`same: ${file} is the text of ${key} revision ${revision.number}${revision.via}`);
    return EXIT.ok;
  }
  for (const line of diff.trimEnd().split('\n'))
    io.out(
      line.startsWith('+') && !line.startsWith('+++')
        ? io.green(line)
        : line.startsWith('-') && !line.startsWith('---')
          ? io.red(line)
          : line,
    );
  return EXIT.failed;
}

async function revisionOf(api: ApiClient, workflow: string, options: DiffOptions): Promise<{ number: number; via: string }> {
  if (options.revision !== undefined) {
    const number = Number(options.revision);
    if (!Number.isInteger(number) || number < 1) throw new CliError(`--revision ${options.revision} is not a revision number`, EXIT.usage);
    return { number, via: '' };
  }
  const alias = options.alias ?? 'latest';
  const found = (await api.request<{ revision?: number }>('get', `${workflow}/aliases/${encodeURIComponent(alias)}`)).body;
  if (typeof found.revision !== 'number') throw new CliError(`alias ${alias} names no revision`, EXIT.failed);
  return { number: found.revision, via: ` (alias ${alias})` };
}
