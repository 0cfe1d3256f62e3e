/**
 * Reads and parses request bodies for routes that declare one: a size limit
 * enforced while streaming (413), JSON (and YAML where the route allows it)
 * by content type (415 otherwise), 400 for malformed documents and for
 * documents nested deeper than the limit: YAML measured on its text before it
 * is parsed (yaml-depth.ts), every body once parsed (body-depth.ts; JSON.parse
 * is not recursive, so JSON needs no measure before). Every body from
 * outside (webhooks and callbacks included) is read here.
 */
import type { Context } from 'koa';
import YAML from 'yaml';
import { bodyDepthIssue } from './body-depth';
import { unstorableBodyText } from './storable-text';
import { yamlDepthIssue } from './yaml-depth';
import { HttpError, badRequest, payloadTooLarge, unsupportedMediaType, validationFailed, type FieldError } from './errors';

export type BodyFormat = 'json' | 'yaml';

/** The size (BODY_LIMIT_BYTES) and nesting (BODY_MAX_DEPTH) a body may have. */
export interface BodyLimits {
  bytes: number;
  depth: number;
}

/**
 * The deepest YAML body parsed, whatever BODY_MAX_DEPTH allows: the YAML parser recurses per level
 * and overflowed its stack well before BODY_MAX_DEPTH's maximum (1000); this leaves it room.
 */
export const YAML_MAX_DEPTH = 256;

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

export function mediaType(ctx: Context): string {
  return (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
}

function isJson(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Whether the request carries a body at all (a length, or chunked encoding). */
export function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length) > 0;
  return ctx.get('transfer-encoding') !== '';
}

/** The parsed body; the raw text is kept on `ctx.state.rawBody` for routes that verify signatures over it. */
export async function readBody(ctx: Context, limits: BodyLimits, formats: BodyFormat[]): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  const type = mediaType(ctx);
  const format: BodyFormat | undefined = isJson(type) ? 'json' : YAML_TYPES.has(type) ? 'yaml' : undefined;
  if (!format || !formats.includes(format)) {
    const accepted = formats.map((f) => (f === 'json' ? 'application/json' : 'application/yaml')).join(' or ');
    throw unsupportedMediaType(accepted, type);
  }
  const text = await readText(ctx, limits.bytes);
  (ctx.state as { rawBody?: string }).rawBody = text;
  if (text.trim() === '') return undefined;
  if (format === 'yaml') {
    // Measured on the text: the YAML parser recurses per level, and must never meet a depth it cannot take.
    const depth = Math.min(limits.depth, YAML_MAX_DEPTH);
    const at = yamlDepthIssue(text, depth);
    if (at) {
      const where = `line ${at.line}, column ${at.column}`;
      throw tooDeep({ path: '', message: `is nested deeper than ${depth} levels at ${where} (BODY_MAX_DEPTH)` }, depth, where);
    }
  }
  const body = parse(text, format);
  const issue = bodyDepthIssue(body, limits.depth);
  if (issue) throw tooDeep(issue, limits.depth, `"${issue.path}"`);
  const unstorable = unstorableBodyText(body);
  if (unstorable) throw validationFailed([unstorable]);
  return body;
}

function tooDeep(issue: FieldError, depth: number, where: string): HttpError {
  return validationFailed([issue], `The request body is nested deeper than ${depth} levels at ${where} (BODY_MAX_DEPTH).`, 'body_too_deep');
}

function parse(text: string, format: BodyFormat): unknown {
  if (format === 'json') {
    try {
      // V8 parses JSON without recursion: any depth parses, and the depth check follows.
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`, 'invalid_json');
    }
  }
  try {
    return YAML.parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw badRequest(`The request body is not valid YAML: ${(error as Error).message.split('\n')[0]}`, 'invalid_yaml');
  }
}

function readText(ctx: Context, limit: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || NaN);
  if (declared > limit) {
    // Answer without reading; the connection is closed so the unread body is not parsed as a next request.
    ctx.set('Connection', 'close');
    return Promise.reject(payloadTooLarge(limit));
  }
  // Plain stream events: an async iterator costs several promises per chunk on the hot publish path.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const req = ctx.req;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        cleanup();
        req.resume();
        ctx.set('Connection', 'close');
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    // A client that goes away mid-body: 'close' without 'end'.
    const onClose = () => onError(Object.assign(new Error('the request was aborted'), { code: 'ECONNRESET' }));
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
