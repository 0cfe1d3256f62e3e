/** Every TypeORM entity of the service. */
import { ApiKeyEntity } from './api-key';
import { AccountEntity } from './account';
import { AccountCountEntity } from './account-count';
import { ActionSpecificationEntity } from './action-specification';
import { AuditEventEntity } from './audit-event';
import { ConfigEntryEntity } from './config-entry';
import { ExecutionEntity } from './execution';
import { ExecutionEventEntity } from './execution-event';
import { ExecutionLogEntity } from './execution-log';
import { ExecutionRetentionEntity } from './execution-retention';
import { ExecutionStepEntity } from './execution-step';
import { ExecutionStepPayloadEntity } from './execution-step-payload';
import { ExecutionWaitEntity } from './execution-wait';
import { GrantEntity } from './grant';
import { LightStepResultEntity } from './light-step-result';
import { MetadataEntryEntity } from './metadata-entry';
import { ProviderCategoryEntity } from './provider-category';
import { ProviderSpecificationEntity } from './provider-specification';
import { RoleEntity } from './role';
import { ServiceEntity } from './service';
import { ServiceActionEntity } from './service-action';
import { ServiceSpecificationEntity } from './service-specification';
import { SignalDeliveryEntity } from './signal-delivery';
import { TriggerBindingEntity } from './trigger-binding';
import { UserEntity } from './user';
import { WaitNoticeEntity } from './wait-notice';
import { WebhookReplayEntity } from './webhook-replay';
import { WorkflowEntity } from './workflow';
import { WorkflowAliasEntity } from './workflow-alias';
import { WorkflowRevisionEntity } from './workflow-revision';

export const ENTITIES: Array<new (...args: never[]) => unknown> = [
  // Workflow definitions and config entries.
  WorkflowEntity,
  WorkflowRevisionEntity,
  WorkflowAliasEntity,
  TriggerBindingEntity,
  ConfigEntryEntity,
  // Executions.
  ExecutionEntity,
  ExecutionStepEntity,
  ExecutionStepPayloadEntity,
  ExecutionLogEntity,
  ExecutionEventEntity,
  ExecutionWaitEntity,
  WaitNoticeEntity,
  SignalDeliveryEntity,
  LightStepResultEntity,
  ExecutionRetentionEntity,
  // Webhook ingress.
  WebhookReplayEntity,
  // The audit trail.
  AuditEventEntity,
  // Platform administration.
  UserEntity,
  RoleEntity,
  GrantEntity,
  ApiKeyEntity,
  AccountEntity,
  AccountCountEntity,
  MetadataEntryEntity,
  ServiceSpecificationEntity,
  ActionSpecificationEntity,
  ProviderCategoryEntity,
  ProviderSpecificationEntity,
  ServiceEntity,
  ServiceActionEntity,
];
