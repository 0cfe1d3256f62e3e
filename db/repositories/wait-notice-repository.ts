/**
 * The `wait_notices` table: which declared-answer waits were notified. The sending activity claims the wait
 * before it sends (at most once: a worker lost between the claim and the send leaves the wait unnotified rather
 * than notified twice) and gives the claim back when the send fails, so its retry may send.
 */
import { Repository, type EntityManager } from 'typeorm';
import { WaitNoticeEntity } from '../entities/wait-notice';
import { rowsOf } from '../sql';

export class WaitNoticeRepository extends Repository<WaitNoticeEntity> {
  constructor(manager: EntityManager) {
    super(WaitNoticeEntity, manager);
  }

  /** True when the notice is now ours to send (nobody claimed it before). */
  async claim(executionId: string, waitId: string): Promise<boolean> {
    const inserted = await rowsOf<unknown>(
      this.manager,
      `INSERT INTO wait_notices (execution_id, wait_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
      [executionId, waitId],
    );
    return inserted.length > 0;
  }

  /** Gives a claim back (the send failed): the activity's next attempt may send. */
  async release(executionId: string, waitId: string): Promise<void> {
    await this.delete({ executionId, waitId });
  }
}
