/** The audit trail's settings: how long events are kept, and the name of this process in them. */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { ConfigError, parseConfig } from '../../config/config';

describe('audit trail: configuration', () => {
  it('keeps events 365 days and names the process <hostname>:<pid> by default', () => {
    const config = parseConfig({});
    assert.equal(config.auditRetentionDays, 365);
    assert.equal(config.replicaId, `${hostname()}:${process.pid}`);
  });

  it('reads AUDIT_RETENTION_DAYS and REPLICA_ID, refusing a retention outside 1–36500 days', () => {
    const config = parseConfig({ AUDIT_RETENTION_DAYS: '30', REPLICA_ID: 'api-2' });
    assert.deepEqual([config.auditRetentionDays, config.replicaId], [30, 'api-2']);
    for (const days of ['0', '36501', 'forever']) {
      assert.throws(
        () => parseConfig({ AUDIT_RETENTION_DAYS: days }),
        (error: unknown) => error instanceof ConfigError && /AUDIT_RETENTION_DAYS/.test(String(error)),
      );
    }
  });
});
