/** The command line's HTTP client: the server and token it was given, and errors that say what went wrong. */
import { CliError, EXIT } from './output';

export interface ApiClient {
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

const REQUEST_TIMEOUT_MS = 30_000;

export function createClient(url: string | undefined, token: string | undefined): ApiClient {
  if (!url) throw new CliError('no server: pass --url or set PLATFORM_API_URL', EXIT.usage);
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new CliError(`--url ${url} is not a URL`, EXIT.usage);
  }
  return {
    async request<T>(method: string, path: string, body?: unknown) {
      const target = new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : `${base.href}/`);
      let response: Response;
      try {
        response = await fetch(target, {
          method,
          headers: {
            accept: 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new CliError(`cannot reach ${base.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, EXIT.unreachable);
      }
      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = { detail: text.slice(0, 500) };
      }
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
  ) {
    const exitCode = status === 401 || status === 403 ? EXIT.unauthorized : status === 409 ? EXIT.conflict : EXIT.failed;
    const hint = status === 401 ? ' (check --token or PLATFORM_API_TOKEN)' : '';
    const fields = fieldErrors.map((e) => `\n  ${e.path}: ${e.message}`).join('');
    super(`${request}: ${status} ${reason}${hint}${fields}`, exitCode);
    this.name = 'ApiRefusal';
  }
}

/** Any of the API's three error dialects. */
function apiError(method: string, path: string, status: number, body: unknown): ApiRefusal {
  const value = (body ?? {}) as Record<string, unknown>;
  const message = [value.detail, value.message, value.error, value.title].find((field) => typeof field === 'string') ?? `HTTP ${status}`;
  const fields = Array.isArray(value.errors)
    ? (value.errors as Array<{ path?: string; message?: string }>).map((e) => ({ path: e.path ?? '', message: e.message ?? '' }))
    : [];
  return new ApiRefusal(`${method.toUpperCase()} ${path}`, status, message, fields);
}
