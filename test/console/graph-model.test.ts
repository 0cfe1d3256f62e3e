/**
 * The console's graph model: a revision's definition as nodes and labelled edges
 * (pure; the browser tests check the drawing).
 *
 *   start ─▶ check ─true [x > 1]─▶ big
 *                  └─false──────▶ small ─▶ join(:right)
 */
import assert from 'node:assert/strict';
import { graphOf } from '../../console/src/graph/model';

describe('console graph model', () => {
  it('has one node per step and one labelled edge per connection, ignoring edges to unknown steps', () => {
    const graph = graphOf({
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        check: { type: 'decider', pluginType: 'if', name: 'Is it big?' },
        big: { type: 'module', pluginType: 'log' },
        small: { type: 'module', plugin_type: 'log' },
        join: { type: 'module', pluginType: 'no-op' },
      },
      connections: [
        { from: 'start', to: 'check', sourcePort: 'main', targetPort: 'main' },
        { from: 'check', to: 'big', sourcePort: 'true', targetPort: 'main', condition: 'x > 1' },
        { from: 'check', to: 'small', sourcePort: 'false', targetPort: 'main' },
        { from: 'small', to: 'join', sourcePort: 'main', targetPort: 'right' },
        { from: 'small', to: 'ghost' },
      ],
    });
    assert.deepEqual(
      graph.nodes.map((n) => [n.id, n.type, n.plugin, n.name]),
      [
        ['start', 'trigger', 'manual', ''],
        ['check', 'decider', 'if', 'Is it big?'],
        ['big', 'module', 'log', ''],
        ['small', 'module', 'log', ''],
        ['join', 'module', 'no-op', ''],
      ],
    );
    assert.deepEqual(
      graph.edges.map((e) => `${e.from}->${e.to} ${e.label}`.trim()),
      ['start->check', 'check->big true [x > 1]', 'check->small false', 'small->join → right'],
    );
  });

  it('draws dependsOn of unnormalized definitions, and survives a definition without steps', () => {
    const graph = graphOf({ steps: [{ id: 'a' }, { id: 'b', dependsOn: ['a', 'missing'] }] });
    assert.deepEqual(graph.edges, [{ from: 'a', to: 'b', label: '' }]);
    assert.deepEqual(graphOf(null), { nodes: [], edges: [] });
    assert.deepEqual(graphOf({ steps: 'nonsense' }), { nodes: [], edges: [] });
  });
});
