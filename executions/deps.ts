/** What the execution module needs to record and start executions. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';

export interface StartDeps {
  dataSource: DataSource;
  temporal: Client;
  /** Task queue the execution workflows are started on (the worker polls it). */
  taskQueue: string;
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl: string;
}
