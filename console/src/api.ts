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

export async function api<T = Json>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      'x-console-request': '1',
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
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
