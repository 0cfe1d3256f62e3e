/**
 * The execution export a replay reads (GET /workflows/executions/{id}/export): its document's shape, reading
 * it from a file, JSON text or the parsed document (refusing anything else with ExportInvalid), and the
 * definition it carries.
 */
import { readFileSync } from 'node:fs';
import type { StepRecord, TriggerInfo, WorkflowDefinition } from '../workflows/engine';
import { normalizeDefinition } from './load';

export const EXPORT_FORMAT = 'platform-execution-export';

/** The export document (docs/api.md, "Exporting an execution"); the parts a replay reads are typed. */
export interface ExecutionExport {
  format: typeof EXPORT_FORMAT;
  version: 1;
  exportedAt: string;
  execution: {
    id: string;
    status: string;
    inputs: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    error?: { type?: string; message?: string; stepId?: string } & Record<string, unknown>;
    correlationKey?: string;
  } & Record<string, unknown>;
  workflow: { id: string; key?: string; name?: string; nrn?: string; revision: number; alias?: string };
  definition: Record<string, unknown> | null;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  steps: StepRecord[];
  children: string[];
  logs: Array<Record<string, unknown>>;
  events: Array<{ id: number; type: string; data: Record<string, unknown> }>;
}

/** A file or text that is not an export this kit reads. */
export class ExportInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportInvalid';
  }
}

/** Reads an export: a path to its file, its JSON text, or the parsed document. */
export function readExport(source: string | ExecutionExport | Record<string, unknown>): ExecutionExport {
  let value: unknown = source;
  if (typeof source === 'string') {
    const text = source.trimStart().startsWith('{') ? source : readText(source);
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ExportInvalid(`the export is not JSON: ${(error as Error).message}`);
    }
  }
  const doc = value as Partial<ExecutionExport> | null;
  if (doc === null || typeof doc !== 'object' || doc.format !== EXPORT_FORMAT)
    throw new ExportInvalid(`not an execution export (its "format" is not "${EXPORT_FORMAT}")`);
  if (doc.version !== 1) throw new ExportInvalid(`export version ${String(doc.version)} is not one this kit reads (1)`);
  if (!doc.execution || !Array.isArray(doc.steps)) throw new ExportInvalid('the export has no execution or steps');
  return doc as ExecutionExport;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ExportInvalid(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The definition the export carries, normalized; an export without one (its revision is gone) is refused. */
export function definitionOfExport(doc: ExecutionExport): WorkflowDefinition {
  if (doc.definition === null || typeof doc.definition !== 'object')
    throw new ExportInvalid(
      `the export of ${doc.execution.id} has no definition (its revision is gone): replay it with a definition of your own`,
    );
  return normalizeDefinition(doc.definition);
}
