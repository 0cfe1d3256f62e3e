/**
 * `/metrics` in a process that runs a worker: the app's metrics, then the Temporal SDK's text as its
 * core serves it; when that cannot be read, the app's metrics alone and a comment line saying why.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { createHttpMetrics } from '../../api/ops/metrics';
import { useLocalServer } from '../support/local-server';

describe('/metrics with the Temporal SDK metrics', () => {
  let answer = (res: ServerResponse): void => {
    res.end('# TYPE temporal_sticky_cache_size gauge\ntemporal_sticky_cache_size{a="b"} 3\n');
  };
  const core = useLocalServer((_req, res) => answer(res));

  it('appends the SDK text to the app metrics', async () => {
    const metrics = createHttpMetrics(`${core.base}/metrics`);
    metrics.observe('GET', '/health', 200, 0.001);
    const text = await metrics.text();
    assert.match(text, /^http_requests_total\{method="GET",route="\/health",status="200"\} 1$/m);
    assert.match(text, /^temporal_sticky_cache_size\{a="b"\} 3$/m);
  });

  it('answers without them, saying why, when the SDK does not answer well', async () => {
    answer = (res) => {
      res.statusCode = 500;
      res.end('broken');
    };
    const failing = await createHttpMetrics(`${core.base}/metrics`).text();
    assert.match(failing, /^# Temporal SDK metrics unavailable: HTTP 500$/m);
    assert.doesNotMatch(failing, /broken/);
    const closed = await createHttpMetrics('http://127.0.0.1:1/metrics').text();
    assert.match(closed, /^process_cpu_user_seconds_total /m);
    assert.match(closed, /^# Temporal SDK metrics unavailable: .+$/m);
  });

  it('has no SDK part without a URL (an API alone)', async () => {
    // The SDK's metrics are all named temporal_…; the app's own may speak of Temporal (executions_settled_from_temporal_total).
    const text = await createHttpMetrics().text();
    assert.doesNotMatch(text, /^temporal_/m);
    assert.doesNotMatch(text, /Temporal SDK/);
  });
});
