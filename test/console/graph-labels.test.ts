/**
 * The graph's node labels (pure, measured by a stand-in): boxes widen to the
 * longest name up to a cap, a name that fits is never cut, a longer one is cut
 * to the box with an ellipsis, and a bulk grant's cause speaks of the form's
 * rows (numbered from 1) where the API names items from 0.
 */
import assert from 'node:assert/strict';
import { asRows } from '../../console/src/forms/grant-rows';
import { MAX_NODE_WIDTH, nodeLabels, TEXT_X, type Measure } from '../../console/src/graph/labels';
import { COMPACT } from '../../console/src/graph/layout';
import type { GraphNode } from '../../console/src/graph/model';

/** 8 px a character in the titles' 13 px, 6 px in the subtitles' 11 px. */
const measure: Measure = (text, font) => text.length * (font.includes('13px') ? 8 : 6);
const step = (id: string, name = ''): GraphNode => ({ id, type: 'wait', plugin: 'signal-wait', name });

describe('console graph labels', () => {
  it('keeps the compact width for short names and widens the boxes for a longer one, drawn whole', () => {
    assert.equal(nodeLabels([step('a')], COMPACT, measure).spacing.nodeWidth, COMPACT.nodeWidth);
    const labels = nodeLabels([step('start'), step('wait_for_approval')], COMPACT, measure);
    assert.ok(labels.spacing.nodeWidth >= TEXT_X + 'wait_for_approval'.length * 8, String(labels.spacing.nodeWidth));
    assert.equal(labels.title(step('wait_for_approval')), 'wait_for_approval');
    assert.equal(labels.subtitle(step('x')), 'wait · signal-wait');
    // A display name is the title when there is one.
    assert.equal(labels.title(step('w', 'Approve')), 'Approve');
  });

  it('caps the width and cuts a longer name to the box with an ellipsis', () => {
    const long = `approve_${'x'.repeat(80)}`;
    const labels = nodeLabels([step(long)], COMPACT, measure);
    assert.equal(labels.spacing.nodeWidth, MAX_NODE_WIDTH);
    const title = labels.title(step(long));
    assert.ok(title.endsWith('…') && long.startsWith(title.slice(0, -1)), title);
    assert.ok(measure(title, '600 13px') <= MAX_NODE_WIDTH - TEXT_X, title);
  });

  it("names a bulk grant's rows from 1", () => {
    assert.equal(asRows('item 2 must be {nrn, role_slug}'), 'row 3 must be {nrn, role_slug}');
    assert.equal(asRows('role "viewer" on x is requested twice (items 0 and 3)'), 'role "viewer" on x is requested twice (rows 1 and 4)');
    assert.equal(asRows('role "viewer" does not exist'), 'role "viewer" does not exist');
  });
});
