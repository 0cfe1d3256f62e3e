/** How the command line talks: exit codes, errors that say what to do, colours only on a terminal. */
export const EXIT = {
  ok: 0,
  /** A definition is invalid, a run failed, or the server refused the request. */
  failed: 1,
  /** The command line was used wrongly. */
  usage: 2,
  /** The server could not be reached. */
  unreachable: 3,
  /** The token is missing, invalid or lacks the permission (401, 403). */
  unauthorized: 4,
  /** The server answered 409 (e.g. the execution is not waiting on that signal). */
  conflict: 5,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Output {
  tty: boolean;
  out(line: string): void;
  err(line: string): void;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

export function createOutput(options: { noColor: boolean }): Output {
  const tty = process.stdout.isTTY === true;
  const paint = (code: number) => (text: string) => (tty && !options.noColor ? `\u001b[${code}m${text}\u001b[0m` : text);
  return {
    tty,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    green: paint(32),
    red: paint(31),
    yellow: paint(33),
    dim: paint(2),
  };
}
