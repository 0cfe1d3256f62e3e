import assert from 'node:assert/strict';
import { parseArgs } from '../temporal-server/args';

describe('temporal stand-in: launch arguments', () => {
  it('reads the Temporal CLI dev server arguments the SDK passes, ignoring unknown flags', () => {
    const parsed = parseArgs([
      'dev',
      'server',
      'start-dev',
      '--port',
      '41234',
      '--namespace',
      'ns-a',
      '--ip',
      '127.0.0.1',
      '--log-format',
      'pretty',
      '--log-level',
      'warn',
      '--dynamic-config-value',
      'frontend.enableServerVersionCheck=false',
      '--headless',
      '--search-attribute',
      'Custom=Keyword',
      '--db-filename=/tmp/x.db',
      '--namespace=ns-b',
    ]);
    assert.deepEqual(parsed, {
      timeSkipping: false,
      port: 41234,
      host: '127.0.0.1',
      namespaces: ['ns-a', 'ns-b'],
      searchAttributes: [['Custom', 'Keyword']],
      quiet: true,
    });
  });

  it('reads the time-skipping test server arguments (`<port>`)', () => {
    assert.deepEqual(parseArgs(['test', '41235']), { timeSkipping: true, port: 41235, host: '127.0.0.1', namespaces: [], quiet: true });
    assert.equal(parseArgs(['dev', 'server', 'start-dev']).port, 7233);
    assert.equal(parseArgs(['test', '41235', '--poll-timeout', '500']).pollTimeoutMs, 500);
  });
});
