/**
 * The one-time callback tokens of `webhook-wait` steps. Workflow code is
 * deterministic, so anything it mints is reproducible from its history; the
 * workflow therefore only picks a nonce (its wait's signal name is
 * `webhook:<nonce>`), and the API makes the token a capability by appending an
 * HMAC of (execution id, nonce) keyed by a server secret:
 *
 *   token = nonce (32 hex) + HMAC-SHA256(key, executionId + ":" + nonce)[0..16 bytes] (32 hex)
 *
 * The MAC is added whenever the API shows the wait (pending signals, state) and
 * checked, in constant time, when a request reaches the callback URL. Every
 * replica derives the same key from the configured encryption key.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { webhookSignalName } from '../../workflows/engine';
import type { PendingWait } from '../../workflows/messages';

const NONCE = /^[0-9a-f]{32}$/;
const TOKEN = /^([0-9a-f]{32})([0-9a-f]{32})$/;

/** A key of its own (derived, so no new setting): the encryption key itself is never used for two jobs. */
export function callbackKey(encryptionKey: Buffer): Buffer {
  return createHmac('sha256', encryptionKey).update('webhook-wait callback tokens v1').digest();
}

function mac(key: Buffer, executionId: string, nonce: string): Buffer {
  return createHmac('sha256', key).update(`${executionId}:${nonce}`).digest().subarray(0, 16);
}

/** The nonce of a genuine token for this execution, or undefined for a forged or malformed one. */
export function callbackNonce(key: Buffer, executionId: string, token: string): string | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const [, nonce, given] = match;
  return timingSafeEqual(Buffer.from(given, 'hex'), mac(key, executionId, nonce)) ? nonce : undefined;
}

/** The wait as a client sees it: its callback URL (which ends in the nonce) completed with the MAC. */
export function withSignedCallback(key: Buffer, executionId: string, wait: PendingWait): PendingWait {
  if (wait.callbackUrl === undefined) return wait;
  const nonce = wait.callbackUrl.slice(-32);
  if (!NONCE.test(nonce) || !wait.signalNames.includes(webhookSignalName(nonce))) return wait;
  return { ...wait, callbackUrl: `${wait.callbackUrl}${mac(key, executionId, nonce).toString('hex')}` };
}
