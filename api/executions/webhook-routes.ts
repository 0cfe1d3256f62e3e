/**
 * Webhook ingress, anonymous: `/workflows/webhooks/{token}`. The opaque token
 * (minted when an alias is activated) routes to one live trigger binding in
 * one organization; unknown, deactivated and rotated tokens answer 404.
 *
 * - `mode: start` (default) starts an execution of the binding's revision with
 *   `{method, headers, query, body}` as the trigger payload (auth headers removed).
 * - `mode: signal` delivers the payload as signal `signalName` to the wait
 *   declared with the correlation key read from the payload at `correlationKeyPath`.
 * - With a `secret` (literal or `${{ secrets.NAME }}`), the request must carry
 *   `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`
 *   (`X-Hub-Signature-256` is accepted too); otherwise 401.
 * Answers 202 without an execution id (the sender is not a client of the API).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { decryptSecret } from '../../db/config-crypto';
import { ConfigEntryRepository, folderChain } from '../../db/repositories/config-entry-repository';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { deliver, deliverByCorrelation, startExecution } from '../../executions';
import { readPath, webhookSignalName } from '../../workflows/engine';
import { HttpError, notFound } from '../http/errors';
import { defineRoute, type AppContext, type HttpMethod, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { asProblem } from './errors';
import { newSignalId } from './ids';

export interface WebhookDeps extends ExecutionDeps {
  encryptionKey: Buffer;
}

const tags = ['Webhooks'];
const METHODS: HttpMethod[] = ['post', 'put', 'patch', 'delete', 'get'];
const DROPPED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-webhook-signature', 'x-hub-signature-256']);
const SECRET_REFERENCE = /^\s*\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

const unknownToken = () => notFound('No live webhook answers at this address.', 'webhook-not-found');

export function webhookRoutes(deps: WebhookDeps): RouteDefinition[] {
  return [...METHODS.map((method) => ingressRoute(deps, method)), ...METHODS.map((method) => callbackRoute(deps, method))];
}

/**
 * `/workflows/webhooks/callback/{executionId}/{token}`: the one-time URL a
 * `webhook-wait` step minted. The request is delivered to the waiting step; an
 * unknown, used or expired token answers 404 (nothing to tell a stranger).
 */
function callbackRoute(deps: WebhookDeps, method: HttpMethod): RouteDefinition {
  return defineRoute({
    method,
    path: '/workflows/webhooks/callback/{executionId}/{token}',
    operationId: `webhookCallback_${method}`,
    summary: 'Release a webhook-wait step with this request',
    tags,
    access: { public: 'the one-time callback token in the URL is the capability' },
    params: Type.Object({
      executionId: Type.String({ minLength: 1, maxLength: 128 }),
      token: Type.String({ minLength: 16, maxLength: 64, pattern: '^[A-Za-z0-9]+$' }),
    }),
    ...(method === 'get' ? {} : { body: Type.Unknown(), bodyOptional: true }),
    responses: { 202: { description: 'Delivered to the waiting step', schema: Type.Object({ accepted: Type.Literal(true) }) } },
    errors: [404, 503],
    async handler({ params, body, ctx }) {
      const row = await new ExecutionRepository(deps.dataSource.manager).findAnywhere(params.executionId);
      if (!row || (row.status !== 'running' && row.status !== 'waiting')) throw unknownCallback();
      const payload = { method: ctx.method, headers: forwardedHeaders(ctx), query: { ...ctx.query }, body: body ?? null };
      const outcome = await deliver(deps.temporal, row.id, row.temporalRunId, {
        name: webhookSignalName(params.token),
        payload,
        signalId: newSignalId(),
      }).catch(asProblem);
      if (outcome !== 'delivered') throw unknownCallback();
      return { status: 202, body: { accepted: true } };
    },
  });
}

const unknownCallback = () => notFound('No step waits for a request at this address.', 'webhook-not-found');

function ingressRoute(deps: WebhookDeps, method: HttpMethod): RouteDefinition {
  return defineRoute({
    method,
    path: '/workflows/webhooks/{token}',
    operationId: `webhook_${method}`,
    summary: 'Webhook ingress: start an execution or signal a waiting one',
    tags,
    access: { public: 'the webhook token in the URL is the capability (checked in constant time; HMAC-signed when the trigger says so)' },
    params: Type.Object({ token: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) }),
    ...(method === 'get' ? {} : { body: Type.Unknown(), bodyOptional: true }),
    responses: { 202: { description: 'Accepted', schema: Type.Object({ accepted: Type.Literal(true) }) } },
    errors: [401, 404, 405, 409, 503],
    async handler({ params, body, ctx }) {
      const binding = await new TriggerBindingRepository(deps.dataSource.manager).findLiveByWebhookToken(params.token);
      if (!binding || binding.pluginType !== 'webhook') throw unknownToken();
      const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(
        binding.organizationId,
        binding.workflowId,
        {
          revision: binding.revision,
        },
      );
      if (typeof runnable === 'string') throw unknownToken();
      const config = runnable.definition.steps[binding.triggerId]?.config ?? {};

      const allowed = typeof config.method === 'string' ? config.method.toUpperCase() : 'ANY';
      if (allowed !== 'ANY' && allowed !== ctx.method) {
        throw new HttpError(405, 'method-not-allowed', `This webhook accepts ${allowed} only.`, { headers: { Allow: allowed } });
      }
      if (typeof config.secret === 'string' && config.secret !== '') {
        const secret = await webhookSecret(deps, binding.organizationId, runnable.workflow.id, runnable.workflow.path, config.secret);
        verifySignature(ctx, secret);
      }

      const payload = { method: ctx.method, headers: forwardedHeaders(ctx), query: { ...ctx.query }, body: body ?? null };
      const receivedAt = new Date().toISOString();
      if (config.mode === 'signal') {
        const name = typeof config.signalName === 'string' ? config.signalName : '';
        const found = typeof config.correlationKeyPath === 'string' ? readPath(payload, config.correlationKeyPath) : undefined;
        const key = typeof found === 'string' || typeof found === 'number' ? String(found) : undefined;
        if (name === '' || key === undefined) {
          throw new HttpError(
            409,
            'signal-not-waiting',
            'The webhook payload names no waiting execution (signal name or correlation key missing).',
          );
        }
        const delivered = await deliverByCorrelation(deps, {
          organizationId: binding.organizationId,
          name,
          correlationKey: key,
          payload,
          signalId: newSignalId(),
        }).catch(asProblem);
        if (!delivered) throw new HttpError(409, 'signal-not-waiting', `No execution waits on signal "${name}" with that correlation key.`);
        return { status: 202, body: { accepted: true } };
      }
      await startExecution(deps, {
        organizationId: binding.organizationId,
        runnable: { ...runnable, alias: binding.aliasName },
        inputs: payload,
        trigger: { stepId: binding.triggerId, source: 'webhook', payload, receivedAt },
        createdBy: null,
      }).catch(asProblem);
      return { status: 202, body: { accepted: true } };
    },
  });
}

function forwardedHeaders(ctx: AppContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The trigger's secret: a literal, or a secret config entry the workflow sees. */
async function webhookSecret(
  deps: { dataSource: DataSource; encryptionKey: Buffer },
  organizationId: string,
  workflowId: string,
  path: string,
  configured: string,
): Promise<string> {
  const reference = SECRET_REFERENCE.exec(configured);
  if (!reference) return configured;
  const [entry] = await new ConfigEntryRepository(deps.dataSource.manager).effective(
    organizationId,
    { workflowId, paths: folderChain(path) },
    [reference[1]],
    true,
  );
  // A missing secret must not open the webhook: nobody can sign, so every request is refused.
  if (!entry?.encryptedValue) throw new HttpError(401, 'webhook-signature-invalid', 'The webhook signature cannot be verified.');
  return decryptSecret(deps.encryptionKey, entry.encryptedValue, organizationId);
}

function verifySignature(ctx: AppContext, secret: string): void {
  const header = ctx.get('x-webhook-signature') || ctx.get('x-hub-signature-256');
  const given = header
    .replace(/^sha256=/i, '')
    .trim()
    .toLowerCase();
  const expected = createHmac('sha256', secret)
    .update(ctx.state.rawBody ?? '')
    .digest('hex');
  const ok = /^[0-9a-f]{64}$/.test(given) && timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
  if (!ok) throw new HttpError(401, 'webhook-signature-invalid', 'The webhook signature is missing or does not match the body.');
}
