/**
 * `http-request`: one HTTP call with the built-in fetch, a timeout, the egress
 * policy checked on the first URL and on every redirect, and the response as
 * `{statusCode, statusText, headers, body}` (JSON bodies parsed).
 *
 * Failures carry the reference engine's codes: HTTP_INVALID_URL and HTTP_4XX
 * are not retried; HTTP_TIMEOUT, HTTP_NETWORK_ERROR and HTTP_5XX are, within
 * the step's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { httpRequestDescriptor, parseDuration, type PluginResult } from '../../workflows/engine';
import { egressAllowed, type EgressPolicy } from './egress';
import type { EffectfulPlugin, PluginContext } from './plugin-context';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const MAX_REDIRECTS = 10;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** The activity implementation of the `http-request` descriptor. */
export const httpRequestPlugin: EffectfulPlugin = { descriptor: httpRequestDescriptor, run: httpRequest };

export async function httpRequest({ config, signal, egress }: PluginContext): Promise<PluginResult> {
  const method = (typeof config.method === 'string' ? config.method : 'GET').toUpperCase();
  if (!METHODS.has(method)) throw ApplicationFailure.nonRetryable(`unsupported method "${method}"`, 'HTTP_INVALID_METHOD');
  let url = parseUrl(config.url);
  const timeoutMs = parseDuration(config.timeout) ?? 30_000;
  if (config.verifySsl === false) throw ApplicationFailure.nonRetryable('verifySsl: false is not supported', 'PLUGIN_CONFIG_INVALID');
  const headers = stringHeaders(config.headers);
  const body = encodeBody(config.body, headers, method);

  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  let response: Response | undefined;
  try {
    for (let hop = 0; ; hop++) {
      checkEgress(egress, url);
      response = await fetch(url, { method, headers, body, redirect: 'manual', signal: deadline });
      const location = response.headers.get('location');
      if (config.followRedirects === false || response.status < 300 || response.status >= 400 || !location) break;
      if (hop >= MAX_REDIRECTS) throw ApplicationFailure.nonRetryable(`more than ${MAX_REDIRECTS} redirects`, 'HTTP_TOO_MANY_REDIRECTS');
      await response.body?.cancel();
      url = new URL(location, url);
    }
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    if (deadline.aborted && !signal.aborted) throw ApplicationFailure.retryable(`no response within ${timeoutMs} ms`, 'HTTP_TIMEOUT');
    throw ApplicationFailure.retryable(
      `request failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
      'HTTP_NETWORK_ERROR',
    );
  }

  const text = await readLimited(response);
  const outputs = {
    statusCode: response.status,
    statusText: response.statusText,
    headers: Object.fromEntries(response.headers.entries()),
    body: parseBody(text, response.headers.get('content-type')),
  };
  if (response.status >= 500) throw ApplicationFailure.retryable(`HTTP ${response.status} ${response.statusText}`, 'HTTP_5XX', outputs);
  if (response.status >= 400) throw ApplicationFailure.nonRetryable(`HTTP ${response.status} ${response.statusText}`, 'HTTP_4XX', outputs);
  return { status: 'success', outputs };
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

function checkEgress(policy: EgressPolicy, url: URL): void {
  if (!egressAllowed(policy, url.hostname))
    throw ApplicationFailure.nonRetryable(`egress to ${url.hostname} is not allowed`, 'HTTP_EGRESS_DENIED');
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
  const buffer = Buffer.from(await response.arrayBuffer());
  if (buffer.length > MAX_BODY_BYTES)
    throw ApplicationFailure.nonRetryable(`response body over ${MAX_BODY_BYTES} bytes`, 'HTTP_RESPONSE_TOO_LARGE');
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
