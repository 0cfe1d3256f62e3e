/**
 * How many live (not deleted) accounts an organization has: kept by triggers on `accounts`
 * (migration 1763710000001), never written by the service, read by the accounts list for its
 * total in the same snapshot as the page.
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'account_counts' })
export class AccountCountEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'bigint' }) organizationId!: string;
  @Column({ name: 'live', type: 'bigint' }) live!: string;
}
