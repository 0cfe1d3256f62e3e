/**
 * Idempotent signal delivery: one row per (organization, idempotencyKey),
 * shared by every API replica. The primary key decides a race: the replica
 * whose insert wins delivers, the others answer as it did (`delivered` rows)
 * or wait for it (`pending` rows). A row is forgotten after `expires_at`.
 */
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SignalDeliveries1763760200001 implements MigrationInterface {
  name = 'SignalDeliveries1763760200001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE signal_deliveries (
         organization_id text NOT NULL,
         idempotency_key text NOT NULL,
         target text NOT NULL,
         signal_id text NOT NULL,
         status text NOT NULL CHECK (status IN ('pending', 'delivered')),
         execution_id text,
         started boolean NOT NULL DEFAULT false,
         claimed_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL,
         PRIMARY KEY (organization_id, idempotency_key)
       )`,
    );
    await runner.query(`CREATE INDEX signal_deliveries_expiry ON signal_deliveries (organization_id, expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE signal_deliveries');
  }
}
