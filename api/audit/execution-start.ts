/** The audit event of an execution start, written by the statement that inserts the execution row. */
import type { NewAuditEvent } from '../../db/repositories/audit-event-repository';
import type { NewExecution } from '../../db/repositories/execution-repository';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { workflowNrn } from '../access/workflow-reach';
import type { AuditActor, AuditTrail } from './trail';

/** What StartRequest.audit calls: the start's event, under the workflow's NRN, naming the run (never its inputs). */
export function recordStart(audit: AuditTrail, workflow: WorkflowEntity, source: string, actor?: AuditActor) {
  return (row: NewExecution): NewAuditEvent =>
    audit.row({
      organizationId: row.organizationId,
      nrn: workflowNrn(workflow),
      id: row.id,
      actor,
      details: {
        workflowId: row.workflowId,
        revision: row.revision,
        alias: row.alias,
        source,
        ...(row.idempotencyKey !== null ? { idempotencyKey: row.idempotencyKey } : {}),
        ...(row.correlationKey !== null ? { correlationKey: row.correlationKey } : {}),
      },
    });
}

/** The start of a re-run or retry (StartRequest.audit): under the NRN that guards the first execution, naming both runs. */
export function recordRerun(audit: AuditTrail, nrn: string, kind: 'rerun' | 'retry', rerunOf: string) {
  return (row: NewExecution): NewAuditEvent =>
    audit.row({
      organizationId: row.organizationId,
      nrn,
      id: row.id,
      details: { workflowId: row.workflowId, revision: row.revision, alias: row.alias, source: kind, rerunOf },
    });
}
