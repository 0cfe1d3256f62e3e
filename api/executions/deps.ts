/** What the execution routes need, derived from the area dependencies. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Limits } from '../../config/limits';
import type { PluginCatalog } from '../../workflows/engine';
import type { ExecutionEventHub } from './event-hub';

export interface ExecutionDeps {
  dataSource: DataSource;
  temporal: Client;
  /** Starts with eager workflow start through the worker in this process (executions/deps.ts StartDeps). */
  eagerStarts?: Client;
  /** Task queue the execution workflows are started on (the worker polls it). */
  taskQueue: string;
  /** Temporal Web UI base URL; links to executions are built from it when set. */
  temporalUiUrl?: string;
  /** Days Temporal keeps a closed run's history (0 or unset: unknown); older executions say so instead of linking. */
  temporalRetentionDays?: number;
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl: string;
  /** Wakes event streams when their execution's events are committed. */
  eventHub: ExecutionEventHub;
  limits: Limits;
  /** Signs and checks the callback tokens of webhook-wait steps (see callback-token.ts). */
  callbackKey: Buffer;
  /** The operator's own plugins, listed by /workflows/plugins beside the built-ins. */
  plugins?: PluginCatalog;
}
