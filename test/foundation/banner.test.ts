import assert from 'node:assert/strict';
import { startBanner, type BannerFacts } from '../../startup/banner';

const facts: BannerFacts = {
  apiUrl: 'http://localhost:8080',
  consoleLink: { url: 'http://localhost:8080/console/#code=abc', validMinutes: 15, userId: '1', organizationId: '1' },
  temporal: {
    kind: 'cli',
    address: '127.0.0.1:7233',
    uiUrl: 'http://127.0.0.1:8233',
    version: 'temporal version 1.5.1',
    logFile: '/x/t.log',
  },
  dataDir: '/x',
  embeddedDatabase: true,
};

describe('startup/banner', () => {
  it('frames what a newcomer needs, every line the same width', () => {
    const lines = startBanner(facts).split('\n');
    assert.ok(lines.every((line) => line.length === lines[0].length));
    const text = lines.join('\n');
    for (const expected of [
      /│ API +http:\/\/localhost:8080 +│/,
      /│ Console +http:\/\/localhost:8080\/console\/#code=abc +│/,
      /one-time sign-in link for user 1 of organization 1, valid 15 minutes/,
      /│ Temporal Web UI +http:\/\/127\.0\.0\.1:8233 +│/,
      /│ Temporal +real dev server on 127\.0\.0\.1:7233, temporal version 1\.5\.1 +│/,
      /│ Token +npm run --silent token -- --user 1 --org 1 +│/,
    ])
      assert.match(text, expected);
    assert.doesNotMatch(text, /STAND-IN/);
  });

  it('puts a framed warning with the reason and the fix above it when Temporal is the stand-in', () => {
    const text = startBanner({
      ...facts,
      consoleLink: undefined,
      temporal: { kind: 'stand-in', address: '127.0.0.1:1', standInReason: 'because' },
    });
    const [warning] = text.split('┌');
    assert.match(warning, /^!{10,}\n! WARNING: Temporal is the in-memory STAND-IN/);
    assert.match(warning, /Why: because\./);
    assert.match(warning, /Fix: install Go/);
    assert.match(text, /│ Console +http:\/\/localhost:8080\/console\/ \(sign in with a token\)/);
    assert.match(text, /│ Temporal Web UI +none/);
  });
});
