/**
 * Two revisions side by side (/console/workflows/{id}/diff?from=N&to=M): the
 * text of each as its author published it (both rendered from the stored
 * definitions when either keeps none) in a read-only merge view (changed lines marked, long unchanged
 * stretches collapsed), and the graph of `to` with each step marked
 * `data-diff="added|changed|same"`; steps only `from` had are listed as removed.
 */
import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { graphOf } from '../graph/model';
import { graphView } from '../graph/view';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';
import { readOnlyExtensions } from './code-editor';
import { definitionText } from './definition-text';
import { diffSteps } from './graph-diff';
import { revisionText } from './revision-source';

/** A collapsed stretch says it opens on a click (its marks are plain text: see styles.css). */
const COLLAPSED_PHRASE = EditorState.phrases.of({ '$ unchanged lines': '$ unchanged lines (click to show)' });

export const diffView: View = async (main, [id], query) => {
  mount(main, loading());
  const ref = enc(id);
  const [workflow, revisions] = await Promise.all([
    api<Json>(`/workflows/definitions/${ref}`),
    api<Page<Json>>(`/workflows/definitions/${ref}/revisions${q({ limit: 100 })}`),
  ]);
  const numbers = revisions.data.map((r) => Number(r.revision)).sort((a, b) => b - a);
  const to = Number(query.get('to')) || numbers[0];
  const from = Number(query.get('from')) || numbers.find((n) => n < to) || to;

  const picker = (name: string, chosen: number) =>
    h(
      'select',
      { id: `diff-${name}`, name },
      ...revisions.data.map((r) => {
        const n = Number(r.revision);
        const option = h('option', { value: n }, `#${n} · ${formatTime(r.createdAt)}${r.releaseNotes ? ` — ${text(r.releaseNotes)}` : ''}`);
        option.selected = n === chosen;
        return option;
      }),
    );
  const fromPicker = picker('from', from);
  const toPicker = picker('to', to);
  const form = h(
    'form',
    { class: 'diff-pickers' },
    h('label', { for: 'diff-from' }, 'From'),
    fromPicker,
    h('label', { for: 'diff-to' }, 'To'),
    toPicker,
    h('button', { type: 'submit', 'data-action': 'compare' }, 'Compare'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/workflows/${ref}/diff${q({ from: fromPicker.value, to: toPicker.value })}`);
  });

  const textSlot = h('section', { class: 'diff-text' }, loading('Reading both revisions…'));
  const graphSlot = h('section', { class: 'diff-graph' });
  const summary = h('div', { class: 'diff-summary' });
  mount(
    main,
    h('h1', {}, `Compare revisions of ${text(workflow.name)}`),
    h(
      'p',
      { class: 'meta' },
      link(`/console/workflows/${ref}${q({ revision: to })}`, text(workflow.key ?? workflow.id)),
      ' · ',
      link(`/console/workflows/${ref}/edit${q({ revision: to })}`, `Edit revision ${to}`),
    ),
    form,
    h(
      'div',
      { class: 'diff-body' },
      h('div', {}, h('h2', {}, `Text: #${from} → #${to}`), textSlot),
      h('div', {}, h('h2', {}, `Graph of #${to}, changes marked`), summary, graphSlot),
    ),
  );

  let merge: MergeView | undefined;
  try {
    const [revisionA, revisionB] = await Promise.all([from, to].map((n) => api<Json>(`/workflows/definitions/${ref}/revisions/${n}`)));
    const a = (revisionA.definition as Json | null) ?? {};
    const b = (revisionB.definition as Json | null) ?? {};
    // The texts as their authors wrote them when both are kept; else both rendered alike, so that only content differs.
    let [textA, textB] = await Promise.all([revisionText(ref, revisionA, 'yaml'), revisionText(ref, revisionB, 'yaml')]);
    if (!textA.authored || !textB.authored) {
      textA = { text: definitionText(a, 'yaml'), format: 'yaml', authored: false };
      textB = { text: definitionText(b, 'yaml'), format: 'yaml', authored: false };
    }
    textSlot.setAttribute('data-compared', textA.authored ? 'sources' : 'rendered');
    mount(textSlot, h('div', { class: 'merge-labels' }, h('span', {}, `#${from}`), h('span', {}, `#${to}`)));
    merge = new MergeView({
      a: { doc: textA.text, extensions: [...readOnlyExtensions(textA.format), COLLAPSED_PHRASE] },
      b: { doc: textB.text, extensions: [...readOnlyExtensions(textB.format), COLLAPSED_PHRASE] },
      parent: textSlot,
      gutter: true,
      collapseUnchanged: { margin: 3, minSize: 6 },
    });

    const diff = diffSteps(a, b);
    const view = graphView(graphOf(b));
    for (const node of view.element.querySelectorAll('.node[data-step]')) {
      node.setAttribute('data-diff', diff.change.get(node.getAttribute('data-step') ?? '') ?? 'same');
    }
    mount(graphSlot, view.element);
    const item = (kind: string, ids: string[]) =>
      h(
        'li',
        { 'data-diff-list': kind },
        h('span', { class: `diff-badge diff-${kind}` }, kind),
        ` ${ids.length}`,
        ids.length ? `: ${ids.join(', ')}` : '',
      );
    mount(
      summary,
      diff.added.length + diff.removed.length + diff.changed.length === 0
        ? empty('The two revisions have the same steps.')
        : h('ul', { class: 'diff-legend' }, item('added', diff.added), item('changed', diff.changed), item('removed', diff.removed)),
    );
  } catch (error) {
    mount(textSlot, errorState(error));
  }
  return () => merge?.destroy();
};
