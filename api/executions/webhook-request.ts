/**
 * What a webhook request leaves behind: the `{method, headers, query, body}`
 * payload a trigger or a webhook-wait step receives. It is stored with the
 * execution and in Temporal history, so it keeps only what a workflow needs:
 * - headers on an allowlist (DEFAULT_KEPT_HEADERS), plus those a webhook trigger
 *   names in its `keepHeaders` config, except names that say they carry a
 *   credential (SENSITIVE_HEADERS, and any name with a credential word in it);
 * - query parameters, except those whose names say they carry a credential
 *   (`?token=`, `?api_key=`, `?sig=`…).
 * docs/security.md, "What is never stored or logged", lists the same rules.
 */
import type { AppContext } from '../http/route';

/**
 * Headers kept by default: the body's type and encoding, who sent it, the delivery's
 * identity and event name as the common senders (GitHub, GitLab, Bitbucket) set them, and
 * trace context. Signature headers are checked by the route and never kept.
 */
export const DEFAULT_KEPT_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'content-type',
  'content-encoding',
  'content-language',
  'user-agent',
  'idempotency-key',
  'x-request-id',
  'x-correlation-id',
  'traceparent',
  'tracestate',
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  'x-gitlab-event',
  'x-gitlab-event-uuid',
  'x-event-key',
  'x-hook-uuid',
  'x-event-type',
  'x-event-id',
  'x-delivery-id',
]);

/**
 * Headers that carry credentials or signing material whatever their words say: never stored,
 * never logged, even when a trigger's `keepHeaders` names them.
 */
export const SENSITIVE_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-auth-token',
  'x-csrf-token',
  'x-xsrf-token',
  'x-amz-security-token',
  'x-webhook-signature',
  'x-webhook-timestamp',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-gitlab-token',
  'stripe-signature',
  'x-slack-signature',
]);

/** Words that make a header or query parameter name a credential (`X-Vault-Token`, `api_key`, `X-Shopify-Hmac-Sha256`, `sig`). */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'apikey',
  'key',
  'keys',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'signature',
  'sig',
  'hmac',
  'session',
  'sessionid',
  'cookie',
  'jwt',
  'bearer',
  'otp',
]);

/** Whether a header or parameter name says it carries a credential: one of its words (split at `-_.`, spaces and camel case) is one. */
export function isCredentialName(name: string): boolean {
  const lower = name.toLowerCase();
  if (SENSITIVE_HEADERS.has(lower)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => CREDENTIAL_WORDS.has(word));
}

export type WebhookRequestPayload = {
  method: string;
  headers: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
};

/** `trigger`: the webhook trigger's config, whose `keepHeaders` names headers to keep besides the default ones. */
export function webhookRequestPayload(ctx: AppContext, body: unknown, trigger?: { keepHeaders?: unknown }): WebhookRequestPayload {
  const kept = keptHeaderNames(trigger?.keepHeaders);
  return { method: ctx.method, headers: keptHeaders(ctx, kept), query: keptQuery(ctx), body: body ?? null };
}

/** At most this many extra names are read from `keepHeaders`. */
const MAX_KEPT_EXTRA = 50;

function keptHeaderNames(keepHeaders: unknown): ReadonlySet<string> {
  if (!Array.isArray(keepHeaders)) return DEFAULT_KEPT_HEADERS;
  const extra = keepHeaders
    .slice(0, MAX_KEPT_EXTRA)
    .filter((name): name is string => typeof name === 'string')
    .map((name) => name.toLowerCase());
  return new Set([...DEFAULT_KEPT_HEADERS, ...extra.filter((name) => !isCredentialName(name))]);
}

function keptHeaders(ctx: AppContext, kept: ReadonlySet<string>): Record<string, string> {
  // Built with fromEntries (own properties only): a header named `__proto__` stays a plain key.
  return Object.fromEntries(
    Object.entries(ctx.headers)
      .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined && kept.has(entry[0]))
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );
}

function keptQuery(ctx: AppContext): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ctx.query).filter(([name]) => !isCredentialName(name)));
}
