/**
 * The text a definition was published from, kept on its revision beside the
 * normalized definition that runs (issue 38): the body as the request carried
 * it (already bounded by BODY_LIMIT_BYTES where it was read, api/http/body.ts),
 * comments and order included, and whether it was YAML or JSON. A source holds
 * only what the author wrote: secrets appear in it as `${{ secrets.X }}`
 * references, never as values, exactly as in the definition itself.
 */
import { mediaType } from '../http/body';
import type { AppContext } from '../http/route';

export type SourceFormat = 'yaml' | 'json';

export interface RevisionSource {
  source: string | null;
  sourceFormat: SourceFormat | null;
}

export const SOURCE_CONTENT_TYPES: Record<SourceFormat, string> = {
  yaml: 'application/yaml; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** The request's body text and format; none when the body was not read as text (no body, or a route that parsed none). */
export function sentSource(ctx: AppContext): RevisionSource {
  const text = ctx.state.rawBody;
  if (text === undefined || text.trim() === '') return { source: null, sourceFormat: null };
  const type = mediaType(ctx);
  const sourceFormat: SourceFormat = type === 'application/json' || type.endsWith('+json') ? 'json' : 'yaml';
  return { source: text, sourceFormat };
}
