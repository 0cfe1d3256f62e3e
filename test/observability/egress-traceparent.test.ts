/**
 * What a called service receives while tracing is on: the egress fetch sends the `traceparent` of its
 * CLIENT span (a child of the active span), and a `traceparent` the step set itself unchanged. Once
 * tracing has stopped, nothing is added.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { egressFetch } from '../../activities/egress/egress-fetch';
import { captureLogger } from '../support/logger';
import { TEST_EGRESS } from '../support/egress';
import { useLocalServer } from '../support/local-server';

describe('egress fetch: traceparent while tracing is on', () => {
  const received: IncomingHttpHeaders[] = [];
  const server = useLocalServer((req, res) => {
    received.push(req.headers);
    res.end('ok');
  });

  it('sends the client span’s traceparent, keeps one the step set, and adds nothing once tracing stopped', async () => {
    // Loaded here: the SDK registers process-wide until shutdown.
    const { startOpenTelemetry } = await import('../../startup/opentelemetry.js');
    const { trace } = await import('@opentelemetry/api');
    const tracing = startOpenTelemetry({ endpoint: 'http://127.0.0.1:9', serviceName: 'egress-test', logger: captureLogger().logger });
    const call = async (headers: Record<string, string> = {}) => {
      const response = await egressFetch(TEST_EGRESS, new URL(`${server.base}/call`), { headers });
      await response.text();
      return received.at(-1)!;
    };
    let traceId = '';
    try {
      await trace.getTracer('test').startActiveSpan('step', async (span) => {
        traceId = span.spanContext().traceId;
        const traced = await call({ 'x-step': '1' });
        const [, sentTrace, parent] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(traced.traceparent)) ?? [];
        assert.equal(sentTrace, traceId, 'the called service joins the active trace');
        assert.notEqual(parent, span.spanContext().spanId, 'its parent is the CLIENT span, not the step span');
        assert.equal(traced['x-step'], '1', "the step's own headers are sent");

        const own = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
        assert.equal((await call({ TraceParent: own })).traceparent, own, "a step's own traceparent is sent unchanged");
        span.end();
      });
    } finally {
      await tracing.shutdown();
    }
    assert.ok(traceId);
    assert.equal((await call()).traceparent, undefined, 'nothing is added once tracing stopped');
  });
});
