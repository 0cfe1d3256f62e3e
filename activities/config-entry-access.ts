/**
 * How the worker's activities read a workflow's config entries: where they
 * are looked for (the workflow, its folders, the root), which folder entries
 * its NRN reaches, and the one place secrets are decrypted (each use logged
 * by name). Shared by the execution activities (a step's secrets, `vars.*` at
 * start) and the trigger activities (a trigger plugin's config).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import type { WorkflowReach } from '../executions';
import type { Logger } from '../config/logger';
import { decryptSecret } from '../db/config-crypto';
import { ConfigEntryRepository, folderChain, type OutOfReach, type ReachingPlace } from '../db/repositories/config-entry-repository';
import { WorkflowRepository } from '../db/repositories/workflow-repository';

export interface ConfigEntryAccessDeps {
  dataSource: DataSource;
  logger: Logger;
  encryptionKey: Buffer;
  reach: WorkflowReach;
}

/** Who reads secrets: the workflow, its `secrets:` bindings that rename, and what the decryption is logged with. */
export interface SecretUse {
  organizationId: string;
  workflowId: string;
  /** `secrets.NAME` reads the config entry named here (names only). */
  secretBindings?: Record<string, string>;
  /** Logged with the names decrypted (`executionId` and `stepId`, or the trigger). */
  logged: Record<string, unknown>;
  /** What the log line says they were decrypted for (`a step`, `a trigger`). */
  purpose: string;
}

export function configEntryAccess(deps: ConfigEntryAccessDeps) {
  const configEntries = new ConfigEntryRepository(deps.dataSource.manager);

  /**
   * Where a workflow's entries are looked for, and which folder entries it may use: those whose NRN
   * its own (as it is now, read with its path) reaches. A workflow gone meanwhile reaches none.
   */
  const placeOf = async (organizationId: string, workflowId: string): Promise<ReachingPlace & { workflowNrn: string }> => {
    const workflow = await new WorkflowRepository(deps.dataSource.manager).findOne({
      select: { path: true, nrn: true, organizationId: true },
      where: { organizationId, id: workflowId },
    });
    const workflowNrn = workflow ? deps.reach.nrnOf(workflow) : '';
    return {
      workflowId,
      paths: folderChain(workflow?.path ?? '/'),
      workflowNrn,
      reaches: (nrn) => workflow !== null && deps.reach.reaches(workflowNrn, nrn),
    };
  };
  /** Why names found only out of reach have no value: where each exists. */
  const outOfReachMessage = (kind: string, outside: OutOfReach[], workflowNrn: string) =>
    outside.map((o) => `${kind} ${o.name} exists at ${o.nrn}, outside the workflow's NRN ${workflowNrn}`).join('; ');

  /** Decrypts the named secrets for one use (the one place the worker decrypts), each use logged by name. */
  const loadSecrets = async (use: SecretUse, names: string[]): Promise<Record<string, string>> => {
    if (names.length === 0) return {};
    // A `secrets:` binding makes `secrets.NAME` read the entry it names (own keys only: a name is data).
    const storedName = (name: string) => (use.secretBindings && Object.hasOwn(use.secretBindings, name) ? use.secretBindings[name] : name);
    const stored = [...new Set(names.map(storedName))];
    const place = await placeOf(use.organizationId, use.workflowId);
    const { entries, outOfReach } = await configEntries.effective(use.organizationId, place, stored, true);
    if (outOfReach.length > 0)
      throw ApplicationFailure.nonRetryable(outOfReachMessage('secret', outOfReach, place.workflowNrn), 'CONFIG_ENTRY_UNRESOLVED');
    const missing = stored.filter((name) => !entries.some((entry) => entry.name === name));
    if (missing.length > 0)
      throw ApplicationFailure.nonRetryable(`secret ${missing.join(', ')} has no value for this workflow`, 'CONFIG_ENTRY_UNRESOLVED');
    deps.logger.info({ ...use.logged, secrets: stored }, `secrets decrypted for ${use.purpose}`);
    const values = new Map(
      entries.map((entry) => [entry.name, decryptSecret(deps.encryptionKey, entry.encryptedValue!, use.organizationId)]),
    );
    return Object.fromEntries(names.map((name) => [name, values.get(storedName(name))!]));
  };

  /** Values of the named variables (never secrets); one found only out of the workflow's reach fails, saying where it is. */
  const loadVars = async (organizationId: string, workflowId: string, names: string[]): Promise<Record<string, unknown>> => {
    if (names.length === 0) return {};
    const place = await placeOf(organizationId, workflowId);
    const { entries, outOfReach } = await configEntries.effective(organizationId, place, names, false);
    if (outOfReach.length > 0)
      throw ApplicationFailure.nonRetryable(outOfReachMessage('variable', outOfReach, place.workflowNrn), 'CONFIG_ENTRY_UNRESOLVED');
    return Object.fromEntries(entries.map((entry) => [entry.name, entry.value]));
  };

  return { configEntries, placeOf, outOfReachMessage, loadSecrets, loadVars };
}
