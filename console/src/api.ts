/**
 * Calls the platform API as the signed-in user: the session cookie
 * authenticates (the browser sends it; scripts cannot read it), and every call
 * carries the header the API requires of cookie-authenticated writes.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

export type Json = Record<string, unknown>;

/** A body sent as the author wrote it (a definition's YAML or JSON text), with its content type. */
export interface TextBody {
  text: string;
  contentType: string;
}

function request(path: string, options: { method?: string; body?: unknown; textBody?: TextBody }, accept: string): Promise<Response> {
  const sent =
    options.textBody ?? (options.body !== undefined ? { text: JSON.stringify(options.body), contentType: 'application/json' } : undefined);
  return fetch(path, {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: { accept, 'x-console-request': '1', ...(sent ? { 'content-type': sent.contentType } : {}) },
    body: sent?.text,
  });
}

export async function api<T = Json>(path: string, options: { method?: string; body?: unknown; textBody?: TextBody } = {}): Promise<T> {
  const response = await request(path, options, 'application/json');
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw new ApiError(response.status, describeProblem(response.status, body), body as Json | undefined);
  return body as T;
}

/** A GET answered with text (a revision's source): the text and its content type. */
export async function apiText(path: string): Promise<{ text: string; contentType: string }> {
  const response = await request(path, {}, 'application/yaml, application/json;q=0.9');
  const text = await response.text();
  if (!response.ok) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    throw new ApiError(response.status, describeProblem(response.status, body), body as Json | undefined);
  }
  return { text, contentType: response.headers.get('content-type') ?? '' };
}

/** The message of any of the API's three error dialects (problem details, config, administration). */
function describeProblem(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Json;
    const message = [b.detail, b.message, b.title].find((m) => typeof m === 'string' && m !== '') as string | undefined;
    if (message) return message;
  }
  return `The API answered ${status}.`;
}

export const q = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
};

export const enc = encodeURIComponent;
