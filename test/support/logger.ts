/**
 * A logger that keeps every line in memory, so tests can assert on what the
 * service logs (and on what it must never log, such as tokens and secrets).
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../config/logger';

export interface CapturedLogger {
  logger: Logger;
  lines: string[];
  /** Parsed lines. */
  entries(): Array<Record<string, unknown>>;
}

/** Every line any captured logger wrote during the whole run. */
export const allCapturedLines: string[] = [];

export function captureLogger(level: 'info' | 'debug' | 'trace' = 'debug'): CapturedLogger {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        lines.push(line);
        allCapturedLines.push(line);
      }
      callback();
    },
  });
  const logger = createLogger(level, stream);
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
