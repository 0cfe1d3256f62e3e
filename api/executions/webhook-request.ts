/**
 * What a webhook request leaves behind: the `{method, headers, query, body}`
 * payload a trigger or a webhook-wait step receives. Credentials and signing
 * material never enter it (it is stored with the execution and in Temporal history).
 */
import type { AppContext } from '../http/route';

/**
 * Headers that carry credentials or signing material: never stored, never logged. The
 * well-known ones only (a sender's own header names cannot be guessed): generic credentials,
 * session and CSRF tokens, cloud session tokens, and the secrets or signatures of the
 * common webhook senders (GitHub, GitLab, Stripe, Slack). docs/security.md, "What is never
 * stored or logged", lists the same names.
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

export type WebhookRequestPayload = {
  method: string;
  headers: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
};

export function webhookRequestPayload(ctx: AppContext, body: unknown): WebhookRequestPayload {
  return { method: ctx.method, headers: forwardedHeaders(ctx), query: { ...ctx.query }, body: body ?? null };
}

function forwardedHeaders(ctx: AppContext): Record<string, string> {
  // Built with fromEntries (own properties only): a header named `__proto__` stays a plain key.
  return Object.fromEntries(
    Object.entries(ctx.headers)
      .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined && !SENSITIVE_HEADERS.has(entry[0]))
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );
}
