/**
 * The rate budgets of anonymous webhook ingress, per token (one token routes
 * to one trigger, so one webhook cannot spend another's), per API replica.
 *
 * A trigger's budget (`WEBHOOK_BURST` at once, then `WEBHOOK_REQUESTS_PER_MINUTE`)
 * is spent only by requests it accepts: with a `secret`, only by verified
 * signatures. Refused requests (unknown token, a method the trigger does not
 * take, missing or wrong signature, a replay) spend a budget of their own of
 * the same size, so a flood of bad
 * signatures is limited (429) without touching what the signed sender may
 * send. Both are checked before anything is looked up where they can decide:
 * a spent budget of accepted requests refuses every request; a spent budget of
 * refused ones refuses a request that could not pass verification anyway
 * (signature headers missing, malformed or outside the window), so only a
 * request that may be signed costs the lookups and the HMAC.
 */
import type { Limits } from '../../config/limits';
import { HttpError } from '../http/errors';
import { RateLimiter } from '../http/rate-limiter';
import type { AppContext } from '../http/route';
import { mayBeSigned } from './webhook-signature';
import { webhookTooManyRequests } from './errors';

export class WebhookBudgets {
  private readonly accepted: RateLimiter;
  private readonly refused: RateLimiter;

  constructor(private readonly limits: Pick<Limits, 'webhookRequestsPerMinute' | 'webhookBurst'>) {
    this.accepted = new RateLimiter(limits.webhookRequestsPerMinute, limits.webhookBurst);
    this.refused = new RateLimiter(limits.webhookRequestsPerMinute, limits.webhookBurst);
  }

  /** Callback tokens: the token is the whole capability (a MAC only the API mints), so every request spends the budget. */
  throttle(token: string): void {
    this.limited(this.accepted.take(token));
  }

  /** Before any lookup: refuses what a spent budget would refuse whatever the lookup found. */
  admit(token: string, ctx: AppContext): void {
    if (!mayBeSigned(ctx)) this.limited(this.refused.peek(token), 'refused ');
    this.limited(this.accepted.peek(token));
  }

  /** The request proved it may use the trigger: it spends the trigger's budget. */
  accept(token: string): void {
    this.limited(this.accepted.take(token));
  }

  /** The request was refused with `error`: it spends the budget of refused requests, and answers 429 once that is spent. */
  refuse(token: string, error: unknown): never {
    if (error instanceof HttpError && error.status < 500) this.limited(this.refused.take(token), 'refused ');
    throw error;
  }

  private limited(wait: number, kind = ''): void {
    if (wait > 0)
      throw webhookTooManyRequests(
        `This webhook takes at most ${this.limits.webhookRequestsPerMinute} ${kind}requests a minute (WEBHOOK_REQUESTS_PER_MINUTE); retry in ${wait} s.`,
        wait,
      );
  }
}
