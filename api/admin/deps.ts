/** What the administration routes are built from. */
import type { DataSource } from 'typeorm';

export interface AdminDeps {
  dataSource: DataSource;
}
