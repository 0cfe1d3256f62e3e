import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from './config';

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

/**
 * The logger of a start command: JSON lines for collectors, or, on a terminal (`LOG_FORMAT=auto`)
 * or when asked (`pretty`), one readable line per entry. The pretty stream writes synchronously,
 * so its lines keep their order with the plain-text banner printed beside them.
 */
export function createProcessLogger(config: { logLevel: LogLevel; logFormat: LogFormat }, stdout = process.stdout): Logger {
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && stdout.isTTY === true);
  if (!readable) return createLogger(config.logLevel);
  return createLogger(
    config.logLevel,
    pretty({
      destination: stdout.fd,
      sync: true,
      colorize: stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      singleLine: true,
    }),
  );
}
