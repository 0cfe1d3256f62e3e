/**
 * Every migration, in timestamp order. Listed explicitly (not globbed) so the
 * same list works from TypeScript sources and compiled output.
 */
import type { MigrationInterface } from 'typeorm';
import { AdminAuthorization1763710000000 } from './1763710000000-admin-authorization';
import { Accounts1763710000001 } from './1763710000001-accounts';
import { Specifications1763710000002 } from './1763710000002-specifications';
import { Services1763710000003 } from './1763710000003-services';
import { ProviderCatalog1763710000004 } from './1763710000004-provider-catalog';
import { WorkflowDefinitions1763720000000 } from './1763720000000-workflow-definitions';
import { ConfigEntries1763720000001 } from './1763720000001-config-entries';
import { Executions1763730000000 } from './1763730000000-executions';
import { ExecutionsUnstarted1763730000001 } from './1763730000001-executions-unstarted';
import { ExecutionEventNotify1763740000000 } from './1763740000000-execution-event-notify';
import { WebhookReplays1763740000050 } from './1763740000050-webhook-replays';
import { UsersPerOrganization1763750100000 } from './1763750100000-users-per-organization';
import { EnginePermissions1763750100001 } from './1763750100001-engine-permissions';
import { WorkflowNrnInOrganization1763750100002 } from './1763750100002-workflow-nrn-in-organization';
import { FailureDispatch1763760200000 } from './1763760200000-failure-dispatch';
import { SignalDeliveries1763760200001 } from './1763760200001-signal-deliveries';
import { LightStepResults1763770000000 } from './1763770000000-light-step-results';
import { ExecutionTrees1763780000000 } from './1763780000000-execution-trees';
import { ConfigEntryNrn1763780000030 } from './1763780000030-config-entry-nrn';
import { RecordedRunState1763790000000 } from './1763790000000-recorded-run-state';
import { AuditEvents1763800000000 } from './1763800000000-audit-events';
import { ExecutionRetention1763800000100 } from './1763800000100-execution-retention';
import { ExecutionListIndexes1763800000200 } from './1763800000200-execution-list-indexes';
import { CompactExecutionRecords1763800000300 } from './1763800000300-compact-execution-records';
import { ExecutionReruns1763900000000 } from './1763900000000-execution-reruns';
import { RevisionSources1763900000400 } from './1763900000400-revision-sources';
import { OpenRunChecks1763910000000 } from './1763910000000-open-run-checks';
import { AuditClient1764000000390 } from './1764000000390-audit-client';
import { ApprovalWaits1764100000420 } from './1764100000420-approval-waits';
import { ApiKeys1764100000430 } from './1764100000430-api-keys';
import { FlowControl1764200000440 } from './1764200000440-flow-control';

export const MIGRATIONS: Array<new () => MigrationInterface> = [
  // Platform administration.
  AdminAuthorization1763710000000,
  Accounts1763710000001,
  Specifications1763710000002,
  Services1763710000003,
  ProviderCatalog1763710000004,
  // Workflow definitions and config entries.
  WorkflowDefinitions1763720000000,
  ConfigEntries1763720000001,
  // Executions, step records and logs.
  Executions1763730000000,
  ExecutionsUnstarted1763730000001,
  // Live event streams.
  ExecutionEventNotify1763740000000,
  // Webhook ingress: replay memory of signed requests.
  WebhookReplays1763740000050,
  // Authorization across both areas: users per organization, the engine's permissions in the roles catalog,
  // workflow NRNs inside their organization.
  UsersPerOrganization1763750100000,
  EnginePermissions1763750100001,
  WorkflowNrnInOrganization1763750100002,
  // Recovery runs of failed executions (on-error, execution-failed-trigger).
  FailureDispatch1763760200000,
  // Idempotent signal delivery.
  SignalDeliveries1763760200001,
  // Light steps: results of completed local activity calls, for replays after a lost worker.
  LightStepResults1763770000000,
  // Sub-workflow trees: the descendants a root recorded (the tree budget); live children, for the children sweep.
  ExecutionTrees1763780000000,
  // Folder config entries guarded and bounded by an NRN.
  ConfigEntryNrn1763780000030,
  // Reads of a running execution from PostgreSQL only: its variables, its waits' timeouts and callback URLs.
  RecordedRunState1763790000000,
  // The audit trail of writes through the API (and audit:read outside the viewer role).
  AuditEvents1763800000000,
  // Retention: overrides per organization and workflow; the indexes the sweep of ended executions reads.
  ExecutionRetention1763800000100,
  // The executions list at millions of rows (status filters, cursor paging) and HOT updates of executions.
  ExecutionListIndexes1763800000200,
  // Fewer bytes per execution: event batches in one row, small step records, large items once.
  CompactExecutionRecords1763800000300,
  // Re-runs and retries name the execution they run again.
  ExecutionReruns1763900000000,
  // A revision keeps the text it was published from (YAML or JSON, comments included).
  RevisionSources1763900000400,
  OpenRunChecks1763910000000,
  // The audit trail's client request id and client address beside the server's own request id.
  AuditClient1764000000390,
  // Waits that say who may answer and what (issue 42): the declared answer and the answers counted; notices sent once.
  ApprovalWaits1764100000420,
  // API keys: stored as hashes, their grants narrowing their owner's (issue 43).
  ApiKeys1764100000430,
  // Flow control (issue 44): queued executions, their keys, and an alias's own flow control.
  FlowControl1764200000440,
];
