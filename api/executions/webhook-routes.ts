/**
 * Webhook ingress, anonymous: `/workflows/webhooks/{token}`. The opaque token
 * (minted when an alias is activated) routes to one live trigger binding in
 * one organization; unknown, deactivated and rotated tokens answer 404.
 *
 * - `mode: start` (default) starts an execution of the binding's revision with
 *   `{method, headers, query, body}` as the trigger payload (credential and
 *   signing headers removed, see webhook-request.ts).
 * - `mode: signal` delivers the payload as signal `signalName` to a wait of the
 *   trigger's OWN workflow declared with the correlation key read from the
 *   payload at `correlationKeyPath` (never to another workflow's executions).
 * - GET and HEAD only when the trigger names them (webhook-methods.ts).
 * - With a `secret` (literal or `${{ secrets.NAME }}`), the request must be
 *   signed over its timestamp and body (webhook-signature.ts): 401 otherwise,
 *   409 for a replay.
 * - Rate budgets per token (webhook-budgets.ts): accepted requests spend the
 *   trigger's, refused ones (404, 405, 401, 409) a separate one.
 * - The start URL of an operator's trigger plugin (given to its `activate`)
 *   is a token of the same kind: it starts an execution on POST, PUT, PATCH
 *   or DELETE, with no other setting (the trigger's config is the plugin's).
 * A start answers 202 with the `executionId` it started (200 with `deduplicated:
 * true` and the first delivery's run for a repeated Idempotency-Key), so a
 * sender can follow its run; the id alone grants no read (reads need a token).
 */
import { Type } from '@sinclair/typebox';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { deliver, deliverByCorrelation, startExecution } from '../../executions';
import { readPath, webhookSignalName } from '../../workflows/engine';
import { organizationNrn } from '../access/nrn';
import { workflowNrn } from '../access/workflow-reach';
import { recordStart } from '../audit/execution-start';
import { payloadSchemaErrors } from '../workflows/declared-schemas';
import { defineRoute, type AppContext, type HttpMethod, type RouteDefinition } from '../http/route';
import { callbackNonce } from './callback-token';
import type { ExecutionDeps } from './deps';
import { asProblem, payloadInvalid, webhookNotWaiting, webhookIdempotencyKeyTooLong, webhookNotFound } from './errors';
import { Debounced } from './flow-schemas';
import { newSignalId } from './ids';
import { WebhookBudgets } from './webhook-budgets';
import { checkMethod } from './webhook-methods';
import { webhookRequestPayload } from './webhook-request';
import { verifySignedRequest, webhookSecret } from './webhook-signature';

export interface WebhookDeps extends ExecutionDeps {
  encryptionKey: Buffer;
}

const tags = ['Webhooks'];
const METHODS: HttpMethod[] = ['post', 'put', 'patch', 'delete', 'get'];

const unknownToken = () => webhookNotFound('trigger');

export function webhookRoutes(deps: WebhookDeps): RouteDefinition[] {
  // One budget per token (webhook or callback) for accepted requests, and one for refused ones (webhook-budgets.ts).
  const budgets = new WebhookBudgets(deps.limits);
  return [
    ...METHODS.map((method) => ingressRoute(deps, method, budgets)),
    ...METHODS.map((method) => callbackRoute(deps, method, budgets)),
    ...METHODS.map((method) => callbackRoute(deps, method, budgets, 'prefixed')),
  ];
}

/**
 * `/workflows/webhooks/callback[/{prefix}]/{executionId}/{token}`: the one-time
 * URL a `webhook-wait` step minted (its `urlPrefix`, when set, is a readable
 * segment only: the token is the capability). The request is delivered to the
 * waiting step; an unknown, used or expired token answers 404 (nothing to tell
 * a stranger).
 */
function callbackRoute(deps: WebhookDeps, method: HttpMethod, budgets: WebhookBudgets, shape?: 'prefixed'): RouteDefinition {
  return defineRoute({
    method,
    path:
      shape === 'prefixed'
        ? '/workflows/webhooks/callback/{prefix}/{executionId}/{token}'
        : '/workflows/webhooks/callback/{executionId}/{token}',
    operationId: shape === 'prefixed' ? `webhookCallbackPrefixed_${method}` : `webhookCallback_${method}`,
    summary: 'Release a webhook-wait step with this request',
    tags,
    access: { public: 'the one-time callback token in the URL is the capability' },
    audit: { action: 'execution.signal' },
    params: Type.Object({
      ...(shape === 'prefixed' ? { prefix: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }) } : {}),
      executionId: Type.String({ minLength: 1, maxLength: 128 }),
      token: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9]+$' }),
    }),
    ...(method === 'get' ? {} : { body: WebhookBody, bodyOptional: true }),
    responses: { 202: { description: 'Delivered to the waiting step', schema: Type.Object({ accepted: Type.Literal(true) }) } },
    errors: [404, 429, 503],
    async handler({ params, body, ctx, audit }) {
      budgets.throttle(params.token);
      // A forged token is refused before any lookup: only the API (holding the key) can complete a nonce.
      const nonce = callbackNonce(deps.callbackKey, params.executionId, params.token);
      if (nonce === undefined) throw unknownCallback();
      const row = await new ExecutionRepository(deps.dataSource.manager).findAnywhere(params.executionId);
      if (!row || (row.status !== 'running' && row.status !== 'waiting')) throw unknownCallback();
      const payload = { ...webhookRequestPayload(ctx, body), callbackToken: params.token };
      const signalId = newSignalId();
      const workflow = await new WorkflowRepository(deps.dataSource.manager).findOneBy({
        organizationId: row.organizationId,
        id: row.workflowId,
      });
      // The caller is anonymous: the actor is the callback of the waiting step (never its token, which is the capability).
      const event = {
        organizationId: row.organizationId,
        nrn: workflow ? workflowNrn(workflow) : organizationNrn(row.organizationId),
        id: row.id,
        actor: { kind: 'webhook' as const, id: `callback:${row.id}` },
        details: { name: 'webhook-callback', signalId, method: ctx.method },
      };
      await audit.around(deps.dataSource.manager, event, async () => {
        const outcome = await deliver(deps.temporal, row.id, row.temporalRunId, {
          name: webhookSignalName(nonce),
          payload,
          signalId,
        }).catch(asProblem);
        if (outcome !== 'delivered') throw unknownCallback();
      });
      return { status: 202, body: { accepted: true } };
    },
  });
}

/** Whatever the sender posts: free-form by design, it reaches the workflow as it came. */
const WebhookBody = Type.Unknown({
  description:
    'Any payload the sender posts (free-form): the trigger or waiting step receives it as `body` in `{method, headers, query, body}`; no schema is applied',
});

const unknownCallback = () => webhookNotFound('callback');

function ingressRoute(deps: WebhookDeps, method: HttpMethod, budgets: WebhookBudgets): RouteDefinition {
  return defineRoute({
    method,
    path: '/workflows/webhooks/{token}',
    operationId: `webhook_${method}`,
    summary: 'Webhook ingress: start an execution or signal a waiting one',
    tags,
    access: { public: 'the webhook token in the URL is the capability (checked in constant time; HMAC-signed when the trigger says so)' },
    audit: { action: 'execution.start', also: ['execution.signal'] },
    params: Type.Object({ token: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) }),
    ...(method === 'get' ? {} : { body: WebhookBody, bodyOptional: true }),
    responses: {
      202: {
        description: 'Accepted: `executionId` names the run it started (absent in signal mode)',
        schema: Type.Object({
          accepted: Type.Literal(true),
          executionId: Type.Optional(Type.String()),
          debounced: Type.Optional(Debounced),
        }),
      },
      200: {
        description: 'A repeated Idempotency-Key: nothing new was started; `executionId` names the run the first delivery started',
        schema: Type.Object({ accepted: Type.Literal(true), executionId: Type.String(), deduplicated: Type.Literal(true) }),
      },
    },
    errors: [400, 401, 404, 405, 409, 422, 429, 503],
    async handler({ params, body, ctx, audit }) {
      budgets.admit(params.token, ctx);
      // Only a request that proved it may use the trigger spends its budget: a stranger's refused ones spend their own.
      const { binding, runnable, config } = await admitted(deps, params.token, ctx).catch((error: unknown) =>
        budgets.refuse(params.token, error),
      );
      budgets.accept(params.token);

      const invalid = config.payloadSchema === undefined ? [] : payloadSchemaErrors(runnable.definition, binding.triggerId, body);
      if (invalid.length > 0) throw payloadInvalid(invalid);
      const payload = webhookRequestPayload(ctx, body, config);
      const receivedAt = new Date().toISOString();
      // Anonymous callers: the actor is the trigger whose token they held (never the token itself).
      const actor = { kind: 'webhook' as const, id: `${binding.workflowId}/${binding.triggerId}` };
      if (config.mode === 'signal') {
        const name = typeof config.signalName === 'string' ? config.signalName : '';
        const found = typeof config.correlationKeyPath === 'string' ? readPath(payload, config.correlationKeyPath) : undefined;
        const key = typeof found === 'string' || typeof found === 'number' ? String(found) : undefined;
        if (name === '' || key === undefined) {
          throw webhookNotWaiting();
        }
        const signalId = newSignalId();
        const event = {
          action: 'execution.signal',
          organizationId: binding.organizationId,
          nrn: workflowNrn(runnable.workflow),
          id: null,
          actor,
          details: { name, correlationKey: key, signalId, workflowId: binding.workflowId },
        };
        await audit.around(
          deps.dataSource.manager,
          event,
          async () => {
            const delivered = await deliverByCorrelation(deps, {
              organizationId: binding.organizationId,
              // A webhook is its workflow's entry point: it may not release another workflow's waits.
              workflowId: binding.workflowId,
              name,
              correlationKey: key,
              payload,
              signalId,
            }).catch(asProblem);
            if (!delivered) throw webhookNotWaiting(name);
            return delivered;
          },
          (reached) => ({ executionId: reached.executionId }),
        );
        return { status: 202, body: { accepted: true } };
      }
      const idempotencyKey = webhookIdempotencyKey(ctx.get('idempotency-key'), binding.triggerId);
      const { row, created, merged } = await startExecution(deps, {
        organizationId: binding.organizationId,
        runnable: { ...runnable, alias: binding.aliasName },
        inputs: payload,
        trigger: { stepId: binding.triggerId, source: 'webhook', payload, receivedAt },
        idempotencyKey,
        createdBy: null,
        audit: recordStart(audit, runnable.workflow, 'webhook', actor),
      }).catch(asProblem);
      // As execute: a repeated key starts nothing and says so, naming the run the first delivery started.
      // A debounced delivery names the one run its burst becomes (executions/flow/).
      if (merged) return { status: 202, body: { accepted: true, executionId: row.id, debounced: true } };
      return created
        ? { status: 202, body: { accepted: true, executionId: row.id } }
        : { status: 200, body: { accepted: true, executionId: row.id, deduplicated: true } };
    },
  });
}

/**
 * The live trigger `token` routes to, once the request proved it may use it: 404 unknown token, 405 method, 401 unsigned,
 * 409 replayed. With it, the webhook settings it is read with: a `webhook` trigger's config; for an operator's trigger
 * plugin (its start URL: the config is the plugin's, not these settings) none, so it starts a run on POST, PUT, PATCH
 * or DELETE, unsigned (the token is the capability).
 */
async function admitted(deps: WebhookDeps, token: string, ctx: AppContext) {
  const binding = await new TriggerBindingRepository(deps.dataSource.manager).findLiveByWebhookToken(token);
  const byPlugin = binding !== undefined && isTriggerPlugin(deps, binding.pluginType);
  if (!binding || !(binding.pluginType === 'webhook' || byPlugin)) throw unknownToken();
  const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(binding.organizationId, binding.workflowId, {
    revision: binding.revision,
    // The binding's alias's own flow control applies to its deliveries (executions/flow/).
    flowAlias: binding.aliasName,
  });
  if (typeof runnable === 'string') throw unknownToken();
  const config: Record<string, unknown> = byPlugin ? {} : (runnable.definition.steps[binding.triggerId]?.config ?? {});
  // The method first: a signed request sent with the wrong one is refused before its signature is remembered.
  checkMethod(config, ctx.method);
  const secret = config.secret;
  if (typeof secret === 'string' && secret !== '') {
    await verifySignedRequest(deps.dataSource, ctx, await webhookSecret(deps, binding.organizationId, runnable.workflow, secret));
  }
  return { binding, runnable, config };
}

/** Whether `pluginType` is one of the operator's trigger plugins (its bindings hold a start URL's token). */
function isTriggerPlugin(deps: WebhookDeps, pluginType: string): boolean {
  return deps.plugins !== undefined && Object.hasOwn(deps.plugins, pluginType) && deps.plugins[pluginType].kind === 'trigger';
}

/** Longest `Idempotency-Key` header accepted at webhook ingress. */
export const MAX_WEBHOOK_IDEMPOTENCY_KEY = 200;

/**
 * A sender's `Idempotency-Key` header (the usual way webhook senders mark
 * retries of one delivery) as the run's idempotency key, scoped to the trigger:
 * a retry of the same delivery, on any replica, starts nothing new.
 */
function webhookIdempotencyKey(header: string, triggerId: string): string | undefined {
  const key = header.trim();
  if (key === '') return undefined;
  if (key.length > MAX_WEBHOOK_IDEMPOTENCY_KEY) throw webhookIdempotencyKeyTooLong(MAX_WEBHOOK_IDEMPOTENCY_KEY);
  return `webhook:${triggerId}:${key}`;
}
