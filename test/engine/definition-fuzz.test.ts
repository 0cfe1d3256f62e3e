import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PLUGINS, validateDefinition } from '../../workflows/engine';

/**
 * Whether a JSON pointer names a place in the document: every segment exists,
 * except that a missing required field (and its missing parent object, e.g.
 * `/steps/0/config/url` with no config) may be named.
 */
function parentExists(root: unknown, path: string): boolean {
  if (path === '') return true;
  const segments = path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = root;
  for (let i = 0; i < segments.length; i += 1) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, segments[i])) {
      return segments.length - i <= 2 && (i > 0 || segments.length === 1);
    }
    node = (node as Record<string, unknown>)[segments[i]];
  }
  return true;
}

const stepId = fc.oneof(fc.constantFrom('a', 'b', 'c', 'trigger', 'x_1'), fc.string({ maxLength: 6 }));
const pluginType = fc.oneof(fc.constantFrom(...Object.keys(PLUGINS)), fc.string({ maxLength: 8 }));
const step = fc.record(
  {
    type: fc.oneof(fc.constantFrom('module', 'decider', 'trigger', 'wait', 'passthrough'), fc.anything()),
    pluginType,
    config: fc.oneof(
      fc.dictionary(
        fc.constantFrom('url', 'expression', 'schedule', 'duration', 'message', 'cases', 'signalName', 'batchSize'),
        fc.oneof(fc.string(), fc.integer(), fc.constant('${{ a. }}'), fc.constant('${{ vars.X }}'), fc.anything()),
      ),
      fc.anything(),
    ),
    timeout: fc.oneof(fc.string(), fc.integer()),
    errorHandling: fc.anything(),
    dependsOn: fc.oneof(stepId, fc.array(stepId)),
    condition: fc.oneof(fc.string(), fc.anything()),
  },
  { requiredKeys: ['type'] },
);
const graph = fc.record(
  {
    name: fc.oneof(fc.string(), fc.anything()),
    key: fc.string(),
    path: fc.string(),
    steps: fc.oneof(
      fc.dictionary(stepId, step),
      fc.array(fc.record({ id: stepId, type: fc.constant('module'), pluginType })),
      fc.anything(),
    ),
    connections: fc.oneof(
      fc.array(
        fc.record(
          {
            from: stepId,
            to: stepId,
            sourcePort: fc.oneof(fc.constantFrom('default', 'true', 'loop', 'timeout'), fc.anything()),
            targetPort: fc.string(),
            condition: fc.string(),
          },
          { requiredKeys: ['from', 'to'] },
        ),
      ),
      fc.anything(),
    ),
    variables: fc.anything(),
    triggers: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('engine: validator fuzz', () => {
  it('never throws on random JSON and names a path on every error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const result = validateDefinition(input);
        assert.ok(Array.isArray(result.errors));
        for (const error of result.errors) {
          assert.equal(typeof error.path, 'string');
          assert.ok(error.path === '' || error.path.startsWith('/'), error.path);
          assert.ok(error.message.length > 0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on random graphs; errors point into the document and never come from a validator crash', () => {
    fc.assert(
      fc.property(graph, (input) => {
        const result = validateDefinition(input);
        for (const error of result.errors) {
          assert.ok(!error.message.startsWith('the definition could not be validated'), error.message);
          assert.ok(parentExists(input, error.path), `${error.path} ${error.message}`);
        }
        if (result.errors.length === 0) assert.ok(result.definition);
        else assert.equal(result.definition, undefined);
      }),
      { numRuns: 600 },
    );
  });

  it('survives a step type that cannot become a property key (found by the fuzzer)', () => {
    const result = validateDefinition({
      name: 'x',
      steps: { a: { type: { toString: undefined } }, c: { type: 'module', dependsOn: ['a'] } },
    });
    assert.deepEqual(
      result.errors.map((error) => error.path),
      ['/steps/a/type', '/steps/c/pluginType'],
    );
  });
});
