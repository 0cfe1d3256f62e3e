/** What the administration routes are built from. */
import type { DataSource } from 'typeorm';
import type { ApiKeySettings } from '../../config/config';
import type { Limits } from '../../config/limits';
import type { ServiceTokens } from '../http/service-tokens';

export interface AdminDeps {
  dataSource: DataSource;
  /** The service's limits (default: config/limits.ts defaults). */
  limits?: Pick<Limits, 'maxActionMessages'>;
  /** Expiry of API keys and life of their tokens (default: DEFAULT_API_KEY_SETTINGS). */
  apiKeys?: ApiKeySettings;
  /** Mints the tokens POST /token answers; without it POST /token is not mounted. */
  serviceTokens?: ServiceTokens;
}
