/**
 * Following redirects for every plugin that fetches (http-request,
 * paginated-fetch, code-exec's `fetch`, operator plugins' `fetch`): one loop,
 * each hop through `egressFetch` (so every hop passes the egress checks
 * again), and one rule for what a hop carries over, after the Fetch standard
 * as browsers and curl apply it:
 *
 * - a 301/302 after POST, and a 303 after anything but GET/HEAD, becomes a GET
 *   without a body and without the headers that describe one;
 * - a 307/308 keeps the method and the body (a streamed body cannot be sent
 *   twice: the request fails, as fetch's own follow does);
 * - to another origin (scheme, host or port), only SAFE_CROSS_ORIGIN_HEADERS
 *   go along: Authorization, Cookie, API keys and any header the step set for
 *   the first origin are the first origin's business;
 * - https to http is refused: the hop would send the body (307/308) and the
 *   URL in clear text, and the answer could not be trusted;
 * - a Location that is not http(s) is refused, and at most MAX_REDIRECTS hops.
 */
import { Headers, type BodyInit, type Response } from 'undici';
import { egressFetch, type EgressRequestInit } from './egress-fetch';
import type { EgressPolicy } from './policy';

export const MAX_REDIRECTS = 10;

/**
 * The request headers that follow a redirect to another origin: they describe
 * what the caller accepts and the body it sends, never who it is. Everything
 * else the step set (Authorization, Proxy-Authorization, Cookie, X-Api-Key,
 * any custom header, which may carry a credential we cannot recognise) is dropped.
 */
export const SAFE_CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);

/** Headers that describe a body: they go when a redirect turns the request into a body-less GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-length', 'content-location', 'content-type'];

/** Why a redirect was not followed; the plugins report it in their own dialect (`reason`). */
export class RedirectRefused extends Error {
  constructor(
    readonly reason: 'too-many' | 'insecure' | 'location' | 'streamed-body' | 'redirect-error',
    message: string,
  ) {
    super(message);
    this.name = 'RedirectRefused';
  }
}

export interface HopRequest {
  method: string;
  headers: Headers;
  body?: BodyInit | null;
}

export interface FollowOptions {
  /** `follow` (default), `manual` (the 3xx response is returned as is), `error` (a redirect fails the request). */
  redirect?: 'follow' | 'manual' | 'error';
  /** A check of its own on each next URL before anything is sent to it (code-exec's `network.allowedHosts`); throws to refuse. */
  checkHop?: (url: URL) => void;
}

/**
 * One request through the egress policy, redirects followed by the rule above.
 * `init.headers` may be any HeadersInit; the final response's `url` is the last hop's.
 */
export async function egressFetchFollowing(
  policy: EgressPolicy,
  first: URL,
  init: EgressRequestInit,
  options: FollowOptions = {},
): Promise<Response> {
  let url = first;
  let request: HopRequest = { method: (init.method ?? 'GET').toUpperCase(), headers: new Headers(init.headers), body: init.body };
  for (let hop = 0; ; hop++) {
    const response = await egressFetch(policy, url, { ...init, ...request });
    const location = response.headers.get('location');
    if (options.redirect === 'manual' || !isRedirect(response.status) || location === null) return response;
    await response.body?.cancel();
    if (options.redirect === 'error') throw new RedirectRefused('redirect-error', `redirected (${response.status}) with redirect: 'error'`);
    if (hop >= MAX_REDIRECTS) throw new RedirectRefused('too-many', `more than ${MAX_REDIRECTS} redirects`);
    const next = resolve(location, url);
    request = redirectedRequest(url, next, response.status, request);
    options.checkHop?.(next);
    url = next;
  }
}

function resolve(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new RedirectRefused('location', 'redirected to an invalid Location');
  }
}

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** What the next hop sends, by the rule in this file's comment; throws RedirectRefused when it may not be sent. */
export function redirectedRequest(from: URL, to: URL, status: number, request: HopRequest): HopRequest {
  if (to.protocol !== 'http:' && to.protocol !== 'https:')
    throw new RedirectRefused('location', `redirected to a non-http(s) Location (${to.protocol}): not followed`);
  if (from.protocol === 'https:' && to.protocol === 'http:')
    throw new RedirectRefused('insecure', `redirected from https to http (${to.host}): not followed`);
  const headers = new Headers(request.headers);
  let { method, body } = request;
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) headers.delete(name);
  } else if (body !== undefined && body !== null && !replayable(body)) {
    throw new RedirectRefused('streamed-body', `redirected (${status}) with a streamed body, which cannot be sent again`);
  }
  if (to.origin !== from.origin) for (const name of [...headers.keys()]) if (!SAFE_CROSS_ORIGIN_HEADERS.has(name)) headers.delete(name);
  return { method, headers, body };
}

/** Strings, buffers, Blobs, FormData and URLSearchParams can be sent again; a stream or an async iterable only once. */
function replayable(body: BodyInit): boolean {
  return typeof body !== 'object' || body === null || !('getReader' in body || Symbol.asyncIterator in body);
}
