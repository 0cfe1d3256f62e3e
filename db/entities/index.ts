/** Every TypeORM entity of the service. */
export const ENTITIES: Array<new (...args: never[]) => unknown> = [];

// Workflow definitions and config entries.
import { ConfigEntryEntity } from './config-entry';
import { TriggerBindingEntity } from './trigger-binding';
import { WorkflowEntity } from './workflow';
import { WorkflowAliasEntity } from './workflow-alias';
import { WorkflowRevisionEntity } from './workflow-revision';
ENTITIES.push(WorkflowEntity, WorkflowRevisionEntity, WorkflowAliasEntity, TriggerBindingEntity, ConfigEntryEntity);
