/** What the audit trail's read route is built from. */
import type { DataSource } from 'typeorm';

export interface AuditDeps {
  dataSource: DataSource;
}
