/** Signs a webhook request the way a sender must: HMAC-SHA256 over `<timestamp>.<raw body>`. */
import { createHmac } from 'node:crypto';

export function signedHeaders(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { 'X-Webhook-Timestamp': String(timestamp), 'X-Webhook-Signature': `sha256=${signature}` };
}
