/**
 * Turns a request body into what the repositories write: the engine validates and
 * normalizes it (the same function the runtime uses), the content hash
 * decides between a new revision and an overwrite, and config references
 * without a visible value become warnings.
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ConfigEntryRepository, folderChain } from '../../db/repositories/config-entry-repository';
import type { NewRevision, WorkflowFields } from '../../db/repositories/workflow-repository';
import {
  ENGINE_VERSION,
  definitionBytesIssue,
  secretBindings,
  validateDefinition,
  type ConfigReference,
  type DefinitionLimits,
  type DefinitionWarning,
  type PluginCatalog,
  type WorkflowDefinition,
} from '../../workflows/engine';
import { nrnInOrganization, organizationNrn } from '../access/nrn';
import { workflowReaches } from '../access/workflow-reach';
import { definitionInvalid, nrnOutsideOrganization } from './errors';
import { declaredSchemaErrors } from './declared-schemas';
import { typeScriptErrors } from './typescript-scripts';
import type { RevisionSource } from './revision-source';

export interface ConfigWarning {
  code: 'CONFIG_ENTRY_UNRESOLVED';
  name: string;
  kind: 'secret' | 'var';
}

/** A publish warning: a config reference without an entry, or a definition key that has no effect (`{code, path, message}`). */
export type PublishWarning = ConfigWarning | DefinitionWarning;

export interface Prepared {
  key: string | null;
  /** `nrn` is always set: the definition's, else the caller's organization. */
  fields: WorkflowFields & { nrn: string };
  revision: NewRevision;
  references: ConfigReference[];
  /** The validator's warnings (keys accepted for compatibility that have no effect here). */
  warnings: DefinitionWarning[];
}

/** Workflow-level fields: changing only these never makes a new revision. */
export const WORKFLOW_LEVEL_KEYS = ['name', 'key', 'description', 'path', 'nrn', 'metadata', 'releaseNotes'];

/**
 * A definition's NRN, in canonical form, provided it names the caller's
 * organization or a concrete resource inside it: the NRN is what grants are
 * checked against, so a workflow may never be placed in another tenant.
 */
export function ownNrn(nrn: string | undefined, organizationId: string): string {
  if (nrn === undefined) return organizationNrn(organizationId);
  const inside = nrnInOrganization(nrn, organizationId);
  if ('nrn' in inside) return inside.nrn;
  const { problem } = inside;
  const message = `nrn "${nrn}" ${problem}`;
  throw nrnOutsideOrganization(message);
}

export function prepare(
  body: unknown,
  auth: { organizationId: string; userId: string },
  limits: DefinitionLimits,
  plugins?: PluginCatalog,
  /** The text the body was sent as, kept on the revision (revision-source.ts). */
  source: RevisionSource = { source: null, sourceFormat: null },
): Prepared {
  // Operator plugins the definition uses are pinned into it (their versions): a worker runs it only with compatible ones.
  const result = validateDefinition(body, { limits, plugins });
  if (!result.definition) throw definitionInvalid(result.errors);
  const def: WorkflowDefinition = result.definition;
  const schemaErrors = [...declaredSchemaErrors(def, body), ...typeScriptErrors(def, body)];
  if (schemaErrors.length > 0) throw definitionInvalid(schemaErrors);
  const nrn = ownNrn(def.nrn, auth.organizationId);
  const fields: Prepared['fields'] = {
    name: def.name,
    description: def.description ?? null,
    path: def.path,
    nrn,
    metadata: def.metadata ?? null,
  };
  const definition = { ...def, nrn };
  // Serialized once: the same text is hashed, sent to PostgreSQL and compared there.
  const definitionJson = JSON.stringify(definition);
  const tooLarge = definitionBytesIssue(definitionJson, limits);
  if (tooLarge) throw definitionInvalid([tooLarge]);
  return {
    key: def.key ?? null,
    fields,
    references: boundReferences(result.references, def),
    warnings: result.warnings,
    revision: {
      definition,
      definitionJson,
      contentHash: createHash('sha256').update(definitionJson).digest('hex'),
      createdBy: auth.userId,
      releaseNotes: def.releaseNotes ?? null,
      semanticVersion: def.semanticVersion ?? null,
      engineVersion: ENGINE_VERSION,
      ...source,
    },
  };
}

/** Secret references with the names of the entries they read (`secrets:` bindings applied). */
export function boundReferences(references: ConfigReference[], definition: WorkflowDefinition): ConfigReference[] {
  const bindings = secretBindings(definition);
  return references.map((reference) =>
    reference.kind === 'secret' && Object.hasOwn(bindings, reference.name) ? { ...reference, name: bindings[reference.name] } : reference,
  );
}

/**
 * The definition's warnings, then references with no entry of their kind the workflow may use at any
 * place it sees (workflow, its folder, ancestors, root; folder entries within its NRN `nrn`).
 */
export async function configWarnings(
  db: DataSource,
  organizationId: string,
  workflowId: string | null,
  place: { path: string; nrn: string },
  references: ConfigReference[],
  definitionWarnings: DefinitionWarning[] = [],
): Promise<PublishWarning[]> {
  if (references.length === 0) return definitionWarnings;
  const found = await new ConfigEntryRepository(db.manager).visibleNames(
    organizationId,
    { workflowId, paths: folderChain(place.path), reaches: (entryNrn) => workflowReaches(place.nrn, entryNrn) },
    [...new Set(references.map((r) => r.name))],
  );
  const have = new Set(found.map((f) => `${f.secret ? 'secret' : 'var'}:${f.name}`));
  const unresolved = references
    .filter((r) => !have.has(`${r.kind}:${r.name}`))
    .map((r) => ({ code: 'CONFIG_ENTRY_UNRESOLVED' as const, name: r.name, kind: r.kind }));
  return [...definitionWarnings, ...unresolved];
}

/** The warnings a publish answers with: the definition's own, then its config references no entry resolves. */
export function publishWarnings(db: DataSource, organizationId: string, workflowId: string, prepared: Prepared): Promise<PublishWarning[]> {
  return configWarnings(db, organizationId, workflowId, prepared.fields, prepared.references, prepared.warnings);
}
