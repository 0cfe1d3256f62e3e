/**
 * Signed webhook requests. The sender signs the timestamp with the raw body:
 *
 *   X-Webhook-Timestamp: <Unix seconds>
 *   X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + rawBody)>
 *
 * A missing or wrong signature, the old body-only form, or a timestamp outside
 * the window answers 401; a signature already accepted within its window
 * answers 409 (a replay), on every API replica (the memory is in PostgreSQL).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { decryptSecret } from '../../db/config-crypto';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { ConfigEntryRepository, folderChain } from '../../db/repositories/config-entry-repository';
import { WebhookReplayRepository } from '../../db/repositories/webhook-replay-repository';
import { workflowNrn, workflowReaches } from '../access/workflow-reach';
import { HttpError } from '../http/errors';
import type { AppContext } from '../http/route';
import { webhookSignatureInvalid, webhookReplayed } from './errors';

/** How far (either way) a request's timestamp may be from the server's clock: 5 minutes. */
export const WEBHOOK_SIGNATURE_WINDOW_SECONDS = 300;

const SECRET_REFERENCE = /^\s*\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

/** The trigger's secret: a literal, or a secret config entry the workflow sees (within its NRN: api/access/workflow-reach.ts). */
export async function webhookSecret(
  deps: { dataSource: DataSource; encryptionKey: Buffer },
  organizationId: string,
  workflow: Pick<WorkflowEntity, 'id' | 'path' | 'nrn' | 'organizationId'>,
  configured: string,
): Promise<string> {
  const reference = SECRET_REFERENCE.exec(configured);
  if (!reference) return configured;
  const nrn = workflowNrn(workflow);
  const {
    entries: [entry],
  } = await new ConfigEntryRepository(deps.dataSource.manager).effective(
    organizationId,
    { workflowId: workflow.id, paths: folderChain(workflow.path), reaches: (entryNrn) => workflowReaches(nrn, entryNrn) },
    [reference[1]],
    true,
  );
  // A missing secret, or one outside the workflow's NRN, must not open the webhook: nobody can sign, so every request is refused.
  if (!entry?.encryptedValue) throw webhookSignatureInvalid('The webhook signature cannot be verified.');
  return decryptSecret(deps.encryptionKey, entry.encryptedValue, organizationId);
}

/** The signature headers, when well-formed and within the window: what can be told without the secret. */
function readSignature(ctx: AppContext, now: number): { timestamp: string; given: string } | HttpError {
  const timestamp = ctx.get('x-webhook-timestamp').trim();
  const given = ctx
    .get('x-webhook-signature')
    .trim()
    .replace(/^sha256=/i, '')
    .toLowerCase();
  if (!/^[0-9]{1,12}$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(given)) {
    return webhookSignatureInvalid('Signed webhooks need X-Webhook-Timestamp (Unix seconds) and X-Webhook-Signature: sha256=<hex>.');
  }
  if (Math.abs(now / 1000 - Number(timestamp)) > WEBHOOK_SIGNATURE_WINDOW_SECONDS) {
    return webhookSignatureInvalid(
      `The webhook timestamp is more than ${WEBHOOK_SIGNATURE_WINDOW_SECONDS} seconds from the server's clock.`,
    );
  }
  return { timestamp, given };
}

/** Whether the request could pass verification at all (well-formed signature headers, timestamp within the window). */
export function mayBeSigned(ctx: AppContext, now = Date.now()): boolean {
  return !(readSignature(ctx, now) instanceof HttpError);
}

/** Verifies the signature and its window, then records it so the same request is accepted once. */
export async function verifySignedRequest(dataSource: DataSource, ctx: AppContext, secret: string, now = Date.now()): Promise<void> {
  const signature = readSignature(ctx, now);
  if (signature instanceof HttpError) throw signature;
  const { timestamp, given } = signature;
  const expected = createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(ctx.state.rawBody ?? '')
    .digest();
  // Constant time: the comparison must not tell a forger how many leading bytes were right.
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) {
    throw webhookSignatureInvalid('The webhook signature does not match the timestamp and body.');
  }
  const replays = new WebhookReplayRepository(dataSource.manager);
  await replays.prune(new Date(now));
  // A digest, not the signature: nothing stored could be presented again as a signature.
  const digest = createHash('sha256').update(given).digest('hex');
  const first = await replays.remember(digest, new Date((Number(timestamp) + WEBHOOK_SIGNATURE_WINDOW_SECONDS) * 1000));
  if (!first) throw webhookReplayed();
}
