/** What the administration routes are built from. */
import type { DataSource } from 'typeorm';
import type { Limits } from '../../config/limits';

export interface AdminDeps {
  dataSource: DataSource;
  /** The service's limits (default: config/limits.ts defaults). */
  limits?: Pick<Limits, 'maxActionMessages'>;
}
