/** What the execution routes need, derived from the area dependencies. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';

export interface ExecutionDeps {
  dataSource: DataSource;
  temporal: Client;
  /** Task queue the execution workflows are started on (the worker polls it). */
  taskQueue: string;
  /** Temporal Web UI base URL; links to executions are built from it when set. */
  temporalUiUrl?: string;
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl: string;
  /** Signs and checks the callback tokens of webhook-wait steps (see callback-token.ts). */
  callbackKey: Buffer;
}
