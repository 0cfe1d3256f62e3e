/** What the workflow-definition routes need, derived from the area dependencies. */
import type { DataSource } from 'typeorm';
import type { DefinitionLimits, PluginCatalog } from '../../workflows/engine';
import type { TriggerRegistrars } from './registrars';

export interface WorkflowDeps {
  dataSource: DataSource;
  /** No trailing slash; webhook URLs are built from it on every read. */
  publicBaseUrl: string;
  encryptionKey: Buffer;
  registrars: TriggerRegistrars;
  /** Publish-time ceilings on a definition (WORKFLOW_MAX_*). */
  limits: DefinitionLimits;
  /** Days ended executions are kept without an organization or workflow setting (EXECUTION_RETENTION_DAYS; 0: forever). */
  executionRetentionDays: number;
  /** The operator's own plugins, known to the validator beside the built-ins. */
  plugins?: PluginCatalog;
}
