/** What every product area's routes are built from (the composition root fills it in). */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';

export interface AreaDeps {
  config: AppConfig;
  dataSource: DataSource;
  temporal: Client;
  encryptionKey: Buffer;
}
