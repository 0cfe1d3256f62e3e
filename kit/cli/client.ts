/**
 * The command line's HTTP client: the server and token it was given (or a
 * token it got for an API key at POST /token, again when that one expires),
 * and errors that say what went wrong.
 */
import { CliError, EXIT } from './output';

/** A body sent as written (a definition file's own text), with its content type; any other body is sent as JSON. */
export class TextBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

export interface ApiClient {
  /** JSON in and out; a {@link TextBody} is sent as it is. */
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A GET whose answer is text (a revision's source): the text and its content type. */
  text(path: string): Promise<{ status: number; text: string; contentType: string }>;
}

const REQUEST_TIMEOUT_MS = 30_000;

export function createClient(url: string | undefined, givenToken: string | undefined, apiKey?: string): ApiClient {
  if (!url) throw new CliError('no server: pass --url or set PLATFORM_API_URL', EXIT.usage);
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new CliError(`--url ${url} is not a URL`, EXIT.usage);
  }
  let token = givenToken;
  const send = async (method: string, path: string, body: unknown, accept: string): Promise<Response> => {
    const target = new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : `${base.href}/`);
    const sent = body === undefined ? undefined : body instanceof TextBody ? body : new TextBody(JSON.stringify(body), 'application/json');
    try {
      return await fetch(target, {
        method,
        headers: {
          accept,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(sent ? { 'content-type': sent.contentType } : {}),
        },
        body: sent?.text,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${base.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, EXIT.unreachable);
    }
  };
  const parsedOf = (text: string): unknown => {
    try {
      return text === '' ? undefined : JSON.parse(text);
    } catch {
      return { detail: text.slice(0, 500) };
    }
  };
  /** Exchanges the API key (never printed: a refusal names only the status and the server's message). */
  const exchange = async (): Promise<void> => {
    token = undefined;
    const response = await send('post', 'token', { api_key: apiKey }, 'application/json');
    const parsed = parsedOf(await response.text()) as { access_token?: unknown } | undefined;
    if (response.status >= 400) throw apiError('post', '/token', response.status, parsed, 'PLATFORM_API_KEY');
    if (typeof parsed?.access_token !== 'string') throw new CliError('POST /token answered no access_token', EXIT.failed);
    token = parsed.access_token;
  };
  /** A request with the token; with an API key, a token got first, and once more when the server says it expired. */
  const authorized = async (method: string, path: string, body: unknown, accept: string): Promise<Response> => {
    if (!apiKey || givenToken) return send(method, path, body, accept);
    if (token === undefined) await exchange();
    const response = await send(method, path, body, accept);
    if (response.status !== 401) return response;
    await exchange();
    return send(method, path, body, accept);
  };
  return {
    async text(path: string) {
      const response = await authorized('get', path, undefined, 'application/yaml, application/json;q=0.9, */*;q=0.1');
      const text = await response.text();
      if (response.status >= 400) throw apiError('get', path, response.status, parsedOf(text));
      return { status: response.status, text, contentType: response.headers.get('content-type') ?? '' };
    },
    async request<T>(method: string, path: string, body?: unknown) {
      const response = await authorized(method, path, body, 'application/json');
      const parsed = parsedOf(await response.text());
      if (response.status >= 400) throw apiError(method, path, response.status, parsed);
      return { status: response.status, body: parsed as T };
    },
  };
}

/** The server's answer to a refused request: its status, its message and its field errors, as one line (plus field errors). */
export class ApiRefusal extends CliError {
  constructor(
    readonly request: string,
    readonly status: number,
    readonly reason: string,
    readonly fieldErrors: Array<{ path: string; message: string }>,
    /** The problem type's last segment (`revision-source-not-kept`), when the answer had one. */
    readonly type?: string,
    credential = '--token or PLATFORM_API_TOKEN',
  ) {
    const exitCode = status === 401 || status === 403 ? EXIT.unauthorized : status === 409 ? EXIT.conflict : EXIT.failed;
    const hint = status === 401 ? ` (check ${credential})` : '';
    const fields = fieldErrors.map((e) => `\n  ${e.path}: ${e.message}`).join('');
    super(`${request}: ${status} ${reason}${hint}${fields}`, exitCode);
    this.name = 'ApiRefusal';
  }
}

/** Any of the API's three error dialects. */
function apiError(method: string, path: string, status: number, body: unknown, credential?: string): ApiRefusal {
  const value = (body ?? {}) as Record<string, unknown>;
  const message = [value.detail, value.message, value.error, value.title].find((field) => typeof field === 'string') ?? `HTTP ${status}`;
  const fields = Array.isArray(value.errors)
    ? (value.errors as Array<{ path?: string; message?: string }>).map((e) => ({ path: e.path ?? '', message: e.message ?? '' }))
    : [];
  const type = typeof value.type === 'string' ? value.type.split('/').pop() : undefined;
  return new ApiRefusal(`${method.toUpperCase()} ${path}`, status, message, fields, type, credential);
}
