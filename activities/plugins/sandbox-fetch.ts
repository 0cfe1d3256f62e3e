/**
 * A host `fetch` for a QuickJS context, for code-exec's `network.allowedHosts`.
 *
 * The sandbox is the synchronous build (no asyncify), so `fetch(url, init)`
 * returns at once a QuickJS promise (`vm.newPromise()`) and starts a real
 * Node fetch; when that settles, the promise is resolved with a small
 * Response-like object (`ok`, `status`, `statusText`, `url`, `headers`,
 * `text()`, `json()`) or rejected with an Error. The caller runs the
 * runtime's pending jobs afterwards: `next()` resolves when the next
 * outstanding request has settled its promise, and `outstanding` says whether
 * there is anything to wait for. `dispose()` aborts what is still in flight
 * and frees every handle the bridge holds; call it before disposing the context.
 *
 * Every URL, each redirect included, must be http(s) with a host that matches
 * `allowedHosts` and that the worker's egress policy allows, its resolved
 * addresses included (../egress: the policy wins over `allowedHosts`); a
 * refused host rejects the promise without sending anything. Redirects follow
 * the one rule of ../egress/redirects.ts (credentials stay with their origin). The
 * body is read up to a cap, and a run makes a bounded number of calls.
 * Request headers and bodies are never logged or put in error messages.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten';
import type { Response } from 'undici';
import { egressDenial, readCapped } from '../egress/egress-fetch';
import { hostMatches, type EgressPolicy } from '../egress/policy';
import { RedirectRefused, egressFetchFollowing } from '../egress/redirects';

export const SANDBOX_FETCH_MAX_CALLS = 50;
export const SANDBOX_FETCH_MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface SandboxFetchOptions {
  /** Host patterns as in the egress policy: `api.example.com`, `*.example.com`, `*`. */
  allowedHosts: string[];
  egress: EgressPolicy;
  /** Aborts every request: activity cancellation, the code's deadline. */
  signal: AbortSignal;
  maxCalls?: number;
  maxBodyBytes?: number;
}

interface OutgoingRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

interface FetchedResponse {
  status: number;
  statusText: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An error meant for the sandbox code, as `name: message`. */
class GuestError extends Error {
  constructor(
    message: string,
    readonly guestName: 'Error' | 'TypeError' = 'Error',
  ) {
    super(message);
  }
}

/** Builds the Response-like object inside the sandbox; the body is already read. */
const RESPONSE_FACTORY = `(function (status, statusText, url, headersJson, body) {
  return Object.freeze({
    ok: status >= 200 && status < 300, status, statusText, url, headers: JSON.parse(headersJson),
    text: async () => body,
    json: async () => JSON.parse(body),
  });
})`;

export class SandboxFetch {
  /** Outstanding host operations and the sandbox promise each one settles. */
  private readonly pending = new Map<Promise<void>, QuickJSDeferredPromise>();
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly maxCalls: number;
  private readonly maxBodyBytes: number;
  private factory: QuickJSHandle | undefined;
  private calls = 0;
  private closed = false;
  private fault: Error | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly options: SandboxFetchOptions,
  ) {
    this.signal = AbortSignal.any([options.signal, this.controller.signal]);
    this.maxCalls = options.maxCalls ?? SANDBOX_FETCH_MAX_CALLS;
    this.maxBodyBytes = options.maxBodyBytes ?? SANDBOX_FETCH_MAX_BODY_BYTES;
  }

  /** Defines the global `fetch` in the context. */
  install(): void {
    this.factory = this.vm.unwrapResult(this.vm.evalCode(RESPONSE_FACTORY, 'sandbox-fetch.js'));
    const fetchHandle = this.vm.newFunction('fetch', (url?: QuickJSHandle, init?: QuickJSHandle) => this.start(url, init));
    this.vm.setProp(this.vm.global, 'fetch', fetchHandle);
    fetchHandle.dispose();
  }

  /** Requests whose sandbox promise is not settled yet. */
  get outstanding(): number {
    return this.pending.size;
  }

  /** Resolves once the next outstanding request has settled its sandbox promise (run the pending jobs then). */
  async next(): Promise<void> {
    if (this.pending.size === 0) return;
    await Promise.race(this.pending.keys());
    if (this.fault !== undefined) throw this.fault;
  }

  /** Aborts the requests in flight and frees every handle; the sandbox promises left pending stay so. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.abort(new Error('the sandbox was disposed'));
    for (const deferred of this.pending.values()) deferred.dispose();
    this.pending.clear();
    this.factory?.dispose();
  }

  /** The host side of the sandbox's `fetch`: returns the promise handle (disposed by the caller, quickjs-emscripten). */
  private start(urlHandle: QuickJSHandle | undefined, initHandle: QuickJSHandle | undefined): QuickJSHandle {
    const deferred = this.vm.newPromise();
    let request: OutgoingRequest;
    try {
      request = this.prepare(urlHandle, initHandle);
    } catch (error) {
      // Rejected at once: reject() frees the resolvers, quickjs-emscripten the returned handle.
      try {
        this.rejectWith(deferred, error, undefined);
      } catch (failure) {
        deferred.dispose();
        throw failure;
      }
      return deferred.handle;
    }
    const operation: Promise<void> = this.perform(request)
      .then(
        (response) => this.settle(deferred, () => this.resolveWith(deferred, response)),
        (error: unknown) => this.settle(deferred, () => this.rejectWith(deferred, error, request.url.hostname)),
      )
      .finally(() => this.pending.delete(operation));
    this.pending.set(operation, deferred);
    return deferred.handle;
  }

  private prepare(urlHandle: QuickJSHandle | undefined, initHandle: QuickJSHandle | undefined): OutgoingRequest {
    this.calls += 1;
    if (this.calls > this.maxCalls) throw new GuestError(`fetch: more than ${this.maxCalls} calls in one run`);
    const url = parseUrl(urlHandle ? this.vm.dump(urlHandle) : undefined);
    this.checkHost(url);
    const init = (initHandle ? this.vm.dump(initHandle) : undefined) as Record<string, unknown> | null | undefined;
    const method = typeof init?.method === 'string' ? init.method.toUpperCase() : 'GET';
    const headers = stringHeaders(init?.headers);
    return { url, method, headers, body: encodeBody(init?.body, headers) };
  }

  private checkHost(url: URL): void {
    const host = url.hostname;
    if (!this.options.allowedHosts.some((pattern) => hostMatches(host, pattern)))
      throw new GuestError(`fetch: host ${host} is not in network.allowedHosts`);
  }

  /** One request, following redirects by ../egress/redirects.ts (every hop also passes `checkHost`). */
  private async perform(request: OutgoingRequest): Promise<FetchedResponse> {
    const { url, method, headers, body } = request;
    const checkHop = (next: URL) => this.checkHost(next);
    const response = await egressFetchFollowing(this.options.egress, url, { method, headers, body, signal: this.signal }, { checkHop });
    return this.read(response);
  }

  /** The body read up to the cap; `url` is the last hop's. */
  private async read(response: Response): Promise<FetchedResponse> {
    const body = await readCapped(response, this.maxBodyBytes);
    if (!body) throw new GuestError(`fetch: response body over ${this.maxBodyBytes} bytes`);
    return {
      status: response.status,
      statusText: response.statusText,
      url: response.url,
      headers: Object.fromEntries(response.headers.entries()),
      body: body.toString('utf8'),
    };
  }

  /** Applies a settlement unless the bridge was disposed meanwhile (its deferreds are gone then). */
  private settle(deferred: QuickJSDeferredPromise, apply: () => void): void {
    if (this.closed) return;
    try {
      apply();
    } catch (error) {
      this.fault ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      deferred.dispose();
    }
  }

  private resolveWith(deferred: QuickJSDeferredPromise, response: FetchedResponse): void {
    const vm = this.vm;
    const args = [
      vm.newNumber(response.status),
      vm.newString(response.statusText),
      vm.newString(response.url),
      vm.newString(JSON.stringify(response.headers)),
      vm.newString(response.body),
    ];
    try {
      const result = vm.callFunction(this.factory!, vm.undefined, ...args);
      if (result.error) {
        deferred.reject(result.error);
        result.error.dispose();
      } else {
        deferred.resolve(result.value);
        result.value.dispose();
      }
    } finally {
      for (const arg of args) arg.dispose();
    }
  }

  private rejectWith(deferred: QuickJSDeferredPromise, error: unknown, host: string | undefined): void {
    const { name, message } = this.guestError(error, host);
    const handle = this.vm.newError({ name, message });
    try {
      deferred.reject(handle);
    } finally {
      handle.dispose();
    }
  }

  private guestError(error: unknown, host: string | undefined): { name: string; message: string } {
    if (error instanceof GuestError) return { name: error.guestName, message: error.message };
    if (error instanceof RedirectRefused) return { name: 'TypeError', message: `fetch: ${error.message}` };
    const denied = egressDenial(error);
    if (denied) return { name: 'Error', message: `fetch: ${denied.message}` };
    const request = host === undefined ? 'the request' : `the request to ${host}`;
    if (this.signal.aborted) return { name: 'AbortError', message: `fetch: ${request} was aborted` };
    const cause =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    return { name: 'TypeError', message: `fetch: ${request} failed: ${cause}` };
  }
}

function parseUrl(value: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new GuestError('fetch: invalid URL', 'TypeError');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new GuestError(`fetch: only http and https URLs are allowed, not ${url.protocol}`, 'TypeError');
  return url;
}

function stringHeaders(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (header === undefined || header === null) continue;
    headers[name] = typeof header === 'string' ? header : JSON.stringify(header);
  }
  return headers;
}

/** A string is sent as is; anything else as JSON, with a JSON content type unless one is set. */
function encodeBody(value: unknown, headers: Record<string, string>): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return JSON.stringify(value);
}
