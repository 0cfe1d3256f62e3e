/**
 * What the service's start-up steps share (./service.ts): which parts this process runs, what start-up
 * has set up so far (each step registering how to stop what it started), and the running service.
 */
import type { AppConfig } from '../config/config';
import type { Logger } from '../config/logger';
import type { ShutdownSequence } from './shutdown-sequence';
import type { Tracing } from './tracing';

export interface RunningService {
  /** Port the API listens on (when the API part runs). */
  port?: number;
  /** Stops accepting requests, drains in-flight work, and releases every resource. */
  stop(): Promise<void>;
}

export interface ServiceParts {
  api: boolean;
  worker: boolean;
}

/** The configuration, the logger, the parts asked for, the shutdown steps so far and the tracing (when on). */
export interface ServiceStart {
  config: AppConfig;
  logger: Logger;
  parts: ServiceParts;
  cleanups: ShutdownSequence;
  tracing: Tracing | undefined;
}
