/** What the execution module needs to record and start executions. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { RunLimits } from '../workflows/engine';

export interface StartDeps {
  dataSource: DataSource;
  temporal: Client;
  /** Task queue the execution workflows are started on (the worker polls it). */
  taskQueue: string;
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl: string;
  /** What each run may do (the service's configured limits). */
  limits: RunLimits;
}
