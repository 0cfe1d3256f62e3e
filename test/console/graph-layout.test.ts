/**
 * The console's graph layout (pure, no DOM): columns follow the edges, boxes of
 * one column never overlap, loops and self-edges are drawn, and 1,000 steps of
 * any shape lay out in time about linear in the size of the graph (printed);
 * and where the arrow keys go from a step.
 *
 *   a ─▶ b ─▶ c ─▶ d        (d ─▶ b: a loop; c ─▶ c: a self-edge)
 *        └───────▶ d
 */
import assert from 'node:assert/strict';
import { COMPACT, isotonic, layoutGraph, REGULAR, type Placed } from '../../console/src/graph/layout';
import { graphOf } from '../../console/src/graph/model';
import { navigator } from '../../console/src/graph/navigation';

const node = (id: string, dependsOn: string[] = []) => [id, { type: dependsOn.length ? 'module' : 'trigger', dependsOn }] as const;

function assertNoOverlap(placed: Placed): void {
  const byColumn = new Map<number, number[]>();
  for (const at of placed.nodes.values()) byColumn.set(at.x, [...(byColumn.get(at.x) ?? []), at.y]);
  for (const ys of byColumn.values()) {
    ys.sort((a, b) => a - b);
    for (let i = 1; i < ys.length; i++) assert.ok(ys[i] - ys[i - 1] >= placed.spacing.nodeHeight, `overlap at ${ys[i - 1]} and ${ys[i]}`);
  }
}

describe('console graph layout', () => {
  it('puts each step right of the steps it depends on, draws loops and self-edges, and overlaps nothing', () => {
    const graph = graphOf({
      steps: Object.fromEntries([node('a'), node('b', ['a', 'd']), node('c', ['b', 'c']), node('d', ['c', 'b'])]),
    });
    const placed = layoutGraph(graph);
    const x = (id: string) => placed.nodes.get(id)!.x;
    assert.ok(x('a') < x('b') && x('b') < x('c') && x('c') < x('d'));
    assert.deepEqual([...placed.ranks.values()], [0, 1, 2, 3]);
    for (const edge of placed.edges) assert.ok(edge.points.length >= 2, `${edge.from}->${edge.to} has a route`);
    // b ─▶ d spans two columns: its route passes one point in between.
    assert.equal(placed.edges.find((e) => e.from === 'b' && e.to === 'd')!.points.length, 3);
    assertNoOverlap(placed);
    assert.ok(placed.width > 0 && placed.height > 0);
  });

  it('is smaller with the compact spacing', () => {
    const graph = graphOf({ steps: Object.fromEntries([node('a'), node('b', ['a']), node('c', ['a'])]) });
    const regular = layoutGraph(graph, REGULAR);
    const compact = layoutGraph(graph, COMPACT);
    assert.ok(compact.width < regular.width && compact.height < regular.height);
    assertNoOverlap(compact);
  });

  it('fits the nearest non-decreasing sequence', () => {
    assert.deepEqual(isotonic([1, 3, 2, 4]), [1, 2.5, 2.5, 4]);
    assert.deepEqual(isotonic([3, 2, 1]), [2, 2, 2]);
    assert.deepEqual(isotonic([]), []);
  });

  it('lays out 1,000 steps of several shapes (times printed)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const shapes: Record<string, (i: number) => string[]> = {
      tree: (i) => [`s${Math.floor((i - 1) / 2)}`],
      chain: (i) => (i % 5 === 0 && i > 4 ? [`s${i - 1}`, `s${i - 4}`] : [`s${i - 1}`]),
      fan: (i) => (i === 999 ? Array.from({ length: 998 }, (_, j) => `s${j + 1}`) : ['s0']),
      random: (i) => [...new Set([`s${Math.floor(random() * i)}`, `s${Math.floor(random() * i)}`])],
    };
    for (const [name, deps] of Object.entries(shapes)) {
      const graph = graphOf({ steps: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => node(`s${i}`, i === 0 ? [] : deps(i)))) });
      const started = performance.now();
      const placed = layoutGraph(graph);
      console.log(`    1,000 steps (${name}): ${(performance.now() - started).toFixed(0)} ms`);
      assert.equal(placed.nodes.size, 1000);
      assertNoOverlap(placed);
      for (const edge of graph.edges) assert.ok(placed.ranks.get(edge.from)! < placed.ranks.get(edge.to)!, `${edge.from}->${edge.to}`);
    }
  });
});

describe('console graph keyboard navigation', () => {
  it('moves along edges (the nearest in height of several), within columns, and Home to the first step', () => {
    //   a ─▶ b ─▶ d
    //   └──▶ c ─┘
    const graph = graphOf({ steps: Object.fromEntries([node('a'), node('b', ['a']), node('c', ['a']), node('d', ['b', 'c'])]) });
    const placed = layoutGraph(graph);
    const keys = navigator(graph, placed);
    assert.equal(keys.first, 'a');
    const [upper, lower] = ['b', 'c'].sort((p, q) => placed.nodes.get(p)!.y - placed.nodes.get(q)!.y);
    assert.ok([upper, lower].includes(keys.next('a', 'ArrowRight')!));
    assert.equal(keys.next(upper, 'ArrowDown'), lower);
    assert.equal(keys.next(lower, 'ArrowUp'), upper);
    assert.equal(keys.next(upper, 'ArrowUp'), undefined);
    assert.equal(keys.next(lower, 'ArrowDown'), undefined);
    assert.equal(keys.next(upper, 'ArrowRight'), 'd');
    assert.ok([upper, lower].includes(keys.next('d', 'ArrowLeft')!));
    assert.equal(keys.next('a', 'ArrowLeft'), undefined);
    assert.equal(keys.next('d', 'ArrowRight'), undefined);
    assert.equal(keys.next('d', 'Home'), 'a');
    assert.equal(keys.next('d', 'x'), undefined);
  });
});
