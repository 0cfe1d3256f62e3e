/**
 * The multi-statement writes of workflow definitions, each one transaction with
 * the transaction's manager only. Both lock the workflow row first, so they
 * serialize with each other and with alias activation (which locks it too).
 */
import type { DataSource } from 'typeorm';
import { definitionDiff } from '../audit/definition-diff';
import type { AuditTrail } from '../audit/trail';
import { workflowNrn } from '../access/workflow-reach';
import { WorkflowAliasRepository } from '../../db/repositories/workflow-alias-repository';
import { WorkflowRepository, type NewRevision, type Published, type WorkflowFields } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';

export type UpsertOutcome = Published & { mode: 'overwritten' | 'new-revision' };

/**
 * Publishes onto an existing workflow, by its key or its id: a new revision when the content
 * differs from the newest one (numbered right after it, under the row lock), else
 * only the workflow-level fields change. Undefined when no workflow has that key or id.
 * Recorded in the audit trail in the same transaction, with the diff from the newest revision.
 */
export async function publishOnExisting(
  dataSource: DataSource,
  organizationId: string,
  ref: string,
  fields: WorkflowFields,
  revision: NewRevision,
  /** Top-level keys that are not content (changing only them overwrites). */
  workflowLevelKeys: string[],
  audit: AuditTrail,
): Promise<UpsertOutcome | undefined> {
  return dataSource.transaction(async (m) => {
    const workflows = new WorkflowRepository(m);
    const revisions = new WorkflowRevisionRepository(m);
    const current = await workflows.lockByRef(organizationId, ref);
    if (!current || (current.key !== ref && current.id !== ref)) return undefined;
    const newest = await revisions.compareWith(current.id, current.latestRevision, revision.definitionJson, workflowLevelKeys);
    const diff = definitionDiff(newest.revision.definition, revision.definition);
    let outcome: UpsertOutcome;
    if (newest.same) {
      const workflow = await workflows.updateFields(current.id, fields);
      if (revision.source && revision.sourceFormat) {
        // The text last published for this content is the revision's source (comments, layout, workflow-level fields).
        const source = { source: revision.source, sourceFormat: revision.sourceFormat };
        await revisions.keepSource(current.id, newest.revision.revision, source);
        Object.assign(newest.revision, source);
      }
      const latestAlias = await new WorkflowAliasRepository(m).findAlias(current.id, 'latest');
      if (!latestAlias) throw new Error(`workflow ${current.id} has no latest alias`);
      outcome = { mode: 'overwritten' as const, workflow, revision: newest.revision, latestAlias };
    } else {
      outcome = { mode: 'new-revision' as const, ...(await revisions.append(current.id, current.latestRevision + 1, fields, revision)) };
    }
    await audit.record(m, {
      nrn: workflowNrn(outcome.workflow),
      id: current.id,
      details: {
        key: current.key,
        mode: outcome.mode,
        revision: outcome.revision.revision,
        previousRevision: newest.revision.revision,
        diff,
      },
    });
    return outcome;
  });
}

/** 'deleted', 'not-found', or 'active' when an alias is still active (nothing is deleted then). */
export async function deleteWorkflow(
  dataSource: DataSource,
  organizationId: string,
  ref: string,
  audit: AuditTrail,
): Promise<'deleted' | 'not-found' | 'active'> {
  return dataSource.transaction(async (m) => {
    const workflows = new WorkflowRepository(m);
    // The row lock serializes with activation, which locks the same row.
    const target = await workflows.lockByRef(organizationId, ref);
    if (!target) return 'not-found';
    if (await new WorkflowAliasRepository(m).anyActive(target.id)) return 'active';
    await workflows.delete({ id: target.id });
    await audit.record(m, { nrn: workflowNrn(target), id: target.id, details: { key: target.key, revisions: target.latestRevision } });
    return 'deleted';
  });
}
