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
    assert.deepEqual(response.body, { status: 'ready', checks: { postgres: { status: 'ok' }, temporal: { status: 'ok' } } });
  });

  it('answers 503 naming the dependency that does not answer', async () => {
    const t = createTestApp({
      readiness: {
        postgres: () => Promise.resolve(),
        temporal: Object.assign(() => Promise.reject(new Error('connection refused')), { kind: 'cli' }),
      },
    });
    const response = await t.request.get('/ready');
    assert.equal(response.status, 503);
    assert.equal(response.body.checks.postgres.status, 'ok');
    assert.deepEqual(response.body.checks.temporal, { status: 'unavailable', kind: 'cli', error: 'connection refused' });
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
