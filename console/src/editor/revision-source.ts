/**
 * The text the console shows for a revision: the source it was published
 * from, as the author wrote it (comments, order, `dependsOn`), when the
 * server kept one (GET …/revisions/{n}/source); else the stored definition
 * rendered, as for revisions published before sources were kept. A JSON
 * source on a single line is a program's serialization rather than an
 * author's layout: it is rendered too, so the editor never opens on one line.
 */
import { apiText, type Json } from '../api';
import { definitionText, type Format } from './definition-text';

export interface RevisionText {
  text: string;
  format: Format;
  /** Whether the text is the author's, as published (else a rendering of the stored definition). */
  authored: boolean;
}

/** Whether `revision` (a Revision as the API answers it) keeps an author's text worth showing as it is. */
export function hasAuthoredSource(revision: Json | undefined): boolean {
  return revision?.sourceFormat === 'yaml' || revision?.sourceFormat === 'json';
}

/** `revision` as read from GET …/revisions/{n}; `rendered` is the format a rendering takes. */
export async function revisionText(workflowRef: string, revision: Json, rendered: Format): Promise<RevisionText> {
  const render = (): RevisionText => ({
    text: definitionText((revision.definition as Json | null) ?? {}, rendered),
    format: rendered,
    authored: false,
  });
  if (!hasAuthoredSource(revision)) return render();
  const source = await apiText(`/workflows/definitions/${workflowRef}/revisions/${Number(revision.revision)}/source`);
  const format: Format = revision.sourceFormat === 'json' ? 'json' : 'yaml';
  if (format === 'json' && !source.text.trimEnd().includes('\n')) return render();
  return { text: source.text, format, authored: true };
}

export const CONTENT_TYPES: Record<Format, string> = { yaml: 'application/yaml', json: 'application/json' };
