import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

export type { Logger };

/**
 * The service's structured logger. Header and body fields that could carry
 * credentials are redacted by path, as a second line of defence: request
 * logging never includes bodies or the Authorization header in the first place.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'platform-api' },
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.password', '*.token', '*.secret'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
