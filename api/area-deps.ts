/** What every product area's routes are built from (the composition root fills it in). */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import type { ExecutionEventHub } from './executions/event-hub';

export interface AreaDeps {
  config: AppConfig;
  dataSource: DataSource;
  temporal: Client;
  encryptionKey: Buffer;
  /** The process's one listener for execution events (closed on shutdown); a fresh one when absent. */
  eventHub?: ExecutionEventHub;
}
