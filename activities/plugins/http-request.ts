/**
 * `http-request`: one HTTP call through the egress fetch (host and resolved
 * addresses checked on the first URL and on every redirect, which follows
 * ../egress/redirects.ts: credentials stay with their origin), a timeout, and
 * the response as `{statusCode, statusText, headers, body}` (JSON bodies
 * parsed; read as a stream up to MAX_BODY_BYTES).
 *
 * Failures carry the reference engine's codes: HTTP_INVALID_URL and HTTP_4XX
 * are not retried (nor are this engine's HTTP_EGRESS_DENIED,
 * HTTP_TOO_MANY_REDIRECTS and HTTP_REDIRECT_REFUSED); HTTP_TIMEOUT,
 * HTTP_NETWORK_ERROR and HTTP_5XX are, within the step's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { httpRequestDescriptor, parseDuration, type PluginResult } from '../../workflows/engine';
import { readCapped } from '../egress/egress-fetch';
import { EgressDenied } from '../egress/policy';
import { RedirectRefused, egressFetchFollowing } from '../egress/redirects';
import { withDeadline } from './deadline';
import type { Response } from 'undici';
import type { EffectfulPlugin, PluginContext } from './plugin-context';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** The activity implementation of the `http-request` descriptor. */
export const httpRequestPlugin: EffectfulPlugin = { descriptor: httpRequestDescriptor, run: httpRequest };

export async function httpRequest({ config, signal, egress }: PluginContext): Promise<PluginResult> {
  const method = (typeof config.method === 'string' ? config.method : 'GET').toUpperCase();
  if (!METHODS.has(method)) throw ApplicationFailure.nonRetryable(`unsupported method "${method}"`, 'HTTP_INVALID_METHOD');
  const url = parseUrl(config.url);
  const timeoutMs = parseDuration(config.timeout) ?? httpRequestDescriptor.callTimeout!.defaultMs;
  if (config.verifySsl === false) throw ApplicationFailure.nonRetryable('verifySsl: false is not supported', 'PLUGIN_CONFIG_INVALID');
  const headers = stringHeaders(config.headers);
  const body = encodeBody(config.body, headers, method);

  const response = await withDeadline(signal, timeoutMs, async (deadline) => {
    const failed = (error: unknown) => {
      throw requestFailure(error, deadline.aborted && !signal.aborted, timeoutMs);
    };
    const redirect = config.followRedirects === false ? 'manual' : 'follow';
    const received = await egressFetchFollowing(egress, url, { method, headers, body, signal: deadline }, { redirect }).catch(failed);
    return { received, text: await readLimited(received).catch(failed) };
  });
  const { received, text } = response;
  const outputs = {
    statusCode: received.status,
    statusText: received.statusText,
    headers: Object.fromEntries(received.headers.entries()),
    body: parseBody(text, received.headers.get('content-type')),
  };
  if (received.status >= 500) throw ApplicationFailure.retryable(`HTTP ${received.status} ${received.statusText}`, 'HTTP_5XX', outputs);
  if (received.status >= 400) throw ApplicationFailure.nonRetryable(`HTTP ${received.status} ${received.statusText}`, 'HTTP_4XX', outputs);
  return { status: 'success', outputs };
}

/** A failed request as the engine's codes: denied egress is final; timeouts and network errors are retried. */
function requestFailure(error: unknown, timedOut: boolean, timeoutMs: number): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof EgressDenied) return ApplicationFailure.nonRetryable(error.message, 'HTTP_EGRESS_DENIED');
  if (error instanceof RedirectRefused)
    return ApplicationFailure.nonRetryable(
      error.message,
      error.reason === 'too-many' ? 'HTTP_TOO_MANY_REDIRECTS' : 'HTTP_REDIRECT_REFUSED',
    );
  if (timedOut) return ApplicationFailure.retryable(`no response within ${timeoutMs} ms`, 'HTTP_TIMEOUT');
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : (error as Error).message;
  return ApplicationFailure.retryable(`request failed: ${cause}`, 'HTTP_NETWORK_ERROR');
}

function parseUrl(value: unknown): URL {
  try {
    const url = new URL(String(value));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return url;
  } catch {
    throw ApplicationFailure.nonRetryable(`"${String(value)}" is not an http(s) URL`, 'HTTP_INVALID_URL');
  }
}

function stringHeaders(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object') return {};
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (header === undefined || header === null) continue;
    headers[name] = typeof header === 'string' ? header : JSON.stringify(header);
  }
  return headers;
}

/** Objects are sent as JSON unless the caller set a non-JSON content type. */
function encodeBody(value: unknown, headers: Record<string, string>, method: string): string | undefined {
  if (value === undefined || value === null || method === 'GET' || method === 'HEAD') return undefined;
  const typeHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
  if (typeof value === 'string' && typeHeader) return value;
  if (!typeHeader) headers['content-type'] = 'application/json';
  const type = headers[typeHeader ?? 'content-type'];
  return /json/i.test(type) || typeof value !== 'string' ? JSON.stringify(value) : value;
}

async function readLimited(response: Response): Promise<string> {
  const buffer = await readCapped(response, MAX_BODY_BYTES);
  if (!buffer) throw ApplicationFailure.nonRetryable(`response body over ${MAX_BODY_BYTES} bytes`, 'HTTP_RESPONSE_TOO_LARGE');
  return buffer.toString('utf8');
}

function parseBody(text: string, contentType: string | null): unknown {
  if (contentType && /json/i.test(contentType) && text !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
