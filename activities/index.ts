/**
 * Activities registered by the worker, created by a factory that receives
 * their dependencies (database, configuration, logger).
 */
import type { DataSource } from 'typeorm';
import type { Logger } from '../runtime/logger';

export interface ActivityDeps {
  dataSource: DataSource;
  logger: Logger;
}

export function createActivities(_deps: ActivityDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  return {};
}
