import assert from 'node:assert/strict';
import { createTestApp } from '../support/app';
import { testDataSource } from '../support/database';

describe('readiness and metrics', () => {
  it('is ready when every dependency answers', async () => {
    const dataSource = await testDataSource();
    const t = createTestApp({
      readiness: { postgres: async () => void (await dataSource.query('SELECT 1')), temporal: () => Promise.resolve() },
    });
    const response = await t.request.get('/ready');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });

  it('answers 503 naming the failing dependency, with the reason in the log only', async () => {
    const t = createTestApp({
      readiness: {
        postgres: () => Promise.resolve(),
        temporal: Object.assign(() => Promise.reject(new Error('connection refused to 10.0.0.7:7233')), { kind: 'cli' }),
      },
    });
    const response = await t.request.get('/ready');
    assert.equal(response.status, 503);
    // Anonymous callers learn which dependency fails, never why or what runs it.
    assert.deepEqual(response.body, { status: 'unavailable', checks: { postgres: 'ok', temporal: 'failing' } });
    assert.doesNotMatch(response.text, /refused|10\.0\.0\.7|cli/);
    const logged = t.log.entries().find((entry) => entry.msg === 'readiness check failing');
    assert.deepEqual([logged?.dependency, logged?.kind, logged?.reason], ['temporal', 'cli', 'connection refused to 10.0.0.7:7233']);
  });

  it('counts requests by route and status', async () => {
    const t = createTestApp();
    await t.request.get('/health');
    await t.request.get('/no-such-route');
    const metrics = (await t.request.get('/metrics')).text;
    assert.match(metrics, /http_requests_total\{method="GET",route="\/health",status="200"\} 1/);
    assert.match(metrics, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    assert.match(metrics, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health",status="200"\}/);
  });
});
