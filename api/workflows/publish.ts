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
  validateDefinition,
  type ConfigReference,
  type DefinitionLimits,
  type WorkflowDefinition,
} from '../../workflows/engine';
import { HttpError, describeFieldErrors, type FieldError } from '../http/errors';

export interface ConfigWarning {
  code: 'CONFIG_ENTRY_UNRESOLVED';
  name: string;
  kind: 'secret' | 'var';
}

export interface Prepared {
  key: string | null;
  fields: WorkflowFields;
  revision: NewRevision;
  references: ConfigReference[];
}

/** Workflow-level fields: changing only these never makes a new revision. */
export const WORKFLOW_LEVEL_KEYS = ['name', 'key', 'description', 'path', 'nrn', 'metadata', 'releaseNotes'];

export function definitionInvalid(errors: FieldError[]): HttpError {
  return new HttpError(400, 'graph-invalid', `The workflow definition is invalid: ${describeFieldErrors(errors)}`, { errors });
}

export function prepare(body: unknown, auth: { organizationId: string; userId: string }, limits: DefinitionLimits): Prepared {
  const result = validateDefinition(body, { limits });
  if (!result.definition) throw definitionInvalid(result.errors);
  const def: WorkflowDefinition = result.definition;
  const nrn = def.nrn ?? `organization=${auth.organizationId}`;
  const fields: WorkflowFields = {
    name: def.name,
    description: def.description ?? null,
    path: def.path,
    nrn,
    metadata: def.metadata ?? null,
  };
  const definition = { ...def, nrn };
  // Serialized once: the same text is hashed, sent to PostgreSQL and compared there.
  const definitionJson = JSON.stringify(definition);
  return {
    key: def.key ?? null,
    fields,
    references: result.references,
    revision: {
      definition,
      definitionJson,
      contentHash: createHash('sha256').update(definitionJson).digest('hex'),
      createdBy: auth.userId,
      releaseNotes: def.releaseNotes ?? null,
      semanticVersion: def.semanticVersion ?? null,
      engineVersion: ENGINE_VERSION,
    },
  };
}

/** References with no entry of their kind at any place the workflow sees (workflow, its folder, ancestors, root). */
export async function configWarnings(
  db: DataSource,
  organizationId: string,
  workflowId: string | null,
  path: string,
  references: ConfigReference[],
): Promise<ConfigWarning[]> {
  if (references.length === 0) return [];
  const found = await new ConfigEntryRepository(db.manager).visibleNames(organizationId, { workflowId, paths: folderChain(path) }, [
    ...new Set(references.map((r) => r.name)),
  ]);
  const have = new Set(found.map((f) => `${f.secret ? 'secret' : 'var'}:${f.name}`));
  return references
    .filter((r) => !have.has(`${r.kind}:${r.name}`))
    .map((r) => ({ code: 'CONFIG_ENTRY_UNRESOLVED' as const, name: r.name, kind: r.kind }));
}
