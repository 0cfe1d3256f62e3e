/** Every TypeORM entity of the service. */
export const ENTITIES: Array<new (...args: never[]) => unknown> = [];

// Workflow definitions and config entries.
import { ConfigEntryEntity } from './config-entry';
import { TriggerBindingEntity } from './trigger-binding';
import { WorkflowEntity } from './workflow';
import { WorkflowAliasEntity } from './workflow-alias';
import { WorkflowRevisionEntity } from './workflow-revision';
ENTITIES.push(WorkflowEntity, WorkflowRevisionEntity, WorkflowAliasEntity, TriggerBindingEntity, ConfigEntryEntity);

// Platform administration.
import { AccountEntity } from './account';
import { ActionSpecificationEntity } from './action-specification';
import { GrantEntity } from './grant';
import { MetadataEntryEntity } from './metadata-entry';
import { ProviderCategoryEntity } from './provider-category';
import { ProviderSpecificationEntity } from './provider-specification';
import { RoleEntity } from './role';
import { ServiceEntity } from './service';
import { ServiceActionEntity } from './service-action';
import { ServiceSpecificationEntity } from './service-specification';
import { UserEntity } from './user';
ENTITIES.push(
  UserEntity,
  RoleEntity,
  GrantEntity,
  AccountEntity,
  MetadataEntryEntity,
  ServiceSpecificationEntity,
  ActionSpecificationEntity,
  ProviderCategoryEntity,
  ProviderSpecificationEntity,
  ServiceEntity,
  ServiceActionEntity,
);
