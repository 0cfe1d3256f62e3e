/** What every product area's routes are built from (the composition root fills it in). */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import type { PluginCatalog } from '../workflows/engine';
import type { ExecutionEventHub } from './executions/event-hub';
import type { ServiceTokens } from './http/service-tokens';

export interface AreaDeps {
  config: AppConfig;
  dataSource: DataSource;
  temporal: Client;
  /** A client on the connection of this process's worker, when one polls the execution task queue: starts are eager through it. */
  eagerStarts?: Client;
  encryptionKey: Buffer;
  /** The process's one listener for execution events (closed on shutdown); a fresh one when absent. */
  eventHub?: ExecutionEventHub;
  /** Descriptors of the operator's own plugins (the PLUGINS setting, loaded at start): validated and listed like the built-ins. */
  plugins?: PluginCatalog;
  /** Mints the service's own tokens (POST /token); absent, the routes that mint answer 503. */
  serviceTokens?: ServiceTokens;
}
