/**
 * The `webhook_replays` table: replay memory of signed webhook requests, shared
 * by every API replica. The primary key decides a race between two replicas
 * receiving the same request: one insert wins, the other is a replay.
 */
import { LessThan, Repository, type EntityManager } from 'typeorm';
import { WebhookReplayEntity } from '../entities/webhook-replay';
import { isUniqueViolation } from '../sql';

export class WebhookReplayRepository extends Repository<WebhookReplayEntity> {
  constructor(manager: EntityManager) {
    super(WebhookReplayEntity, manager);
  }

  /** Records a first sighting; false when the digest was already recorded (a replay). */
  async remember(digest: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.insert({ digest, expiresAt });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Forgets the sightings whose window has passed (their timestamps are refused anyway). */
  async prune(now: Date): Promise<void> {
    await this.delete({ expiresAt: LessThan(now) });
  }
}
