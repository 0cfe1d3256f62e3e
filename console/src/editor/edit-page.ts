/**
 * The definition editor (/console/workflows/{id}/edit[?revision=N] and
 * /console/workflows/new): the definition as YAML or JSON with highlighting,
 * completion from the plugin descriptors, problems underlined as you type and
 * the graph redrawn beside it; Publish (or Ctrl/Cmd-S) sends the text as typed
 * (kept by the server as the revision's source) with release notes as a new
 * revision through the same routes as any client, and opens the workflow at
 * that revision. It opens on the revision's source as written where one is
 * kept. Leaving with unpublished changes asks first; a workflow managed from
 * git says so and asks before publishing.
 */
import type { Diagnostic } from '@codemirror/lint';
import { EditorSelection } from '@codemirror/state';
import { api, ApiError, enc, q, type Json, type Page } from '../api';
import { h, link, mount, text } from '../dom';
import { graphOf } from '../graph/model';
import { graphView } from '../graph/view';
import { navigate, type View } from '../nav';
import { can } from '../session';
import { errorState, loading } from '../states';
import { codeEditor, type CodeEditor } from './code-editor';
import { definitionCompletion, type PluginDescriptor } from './completion';
import { convert, definitionText, parseDefinition, type Format } from './definition-text';
import { confirmEditOfManaged, managedBanner, managedFromGit } from './managed';
import { problemChecker, type Problem } from './problems';
import { CONTENT_TYPES, revisionText } from './revision-source';

/** What a new workflow starts from. */
const STARTER = {
  name: 'New workflow',
  key: 'new-workflow',
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    hello: { type: 'module', pluginType: 'log', config: { message: 'hello' }, dependsOn: ['start'] },
  },
};

/** Release notes longer than this are refused before sending (the column is text; this keeps them notes). */
export const RELEASE_NOTES_MAX = 2000;

export const editView: View = async (main, [id], query) => {
  mount(main, loading());
  const ref = id === undefined ? undefined : enc(id);
  const [workflow, revisions, plugins] = await Promise.all([
    ref ? api<Json>(`/workflows/definitions/${ref}`) : Promise.resolve(undefined),
    ref ? api<Page<Json>>(`/workflows/definitions/${ref}/revisions${q({ limit: 100 })}`) : Promise.resolve(undefined),
    api<{ data: PluginDescriptor[] }>('/workflows/plugins'),
  ]);
  const nrn = typeof workflow?.nrn === 'string' ? workflow.nrn : undefined;
  const mayWrite = await can('workflow:write', nrn);
  const numbers = (revisions?.data ?? []).map((r) => Number(r.revision)).sort((a, b) => b - a);
  const base = Number(query.get('revision')) || numbers[0];
  const revision = ref && base ? await api<Json>(`/workflows/definitions/${ref}/revisions/${base}`) : undefined;
  const key = typeof workflow?.key === 'string' ? workflow.key : undefined;

  // The revision's source as the author wrote it when the server kept one (revision-source.ts), else rendered.
  const asked: Format | undefined = query.get('format') === 'json' ? 'json' : query.get('format') === 'yaml' ? 'yaml' : undefined;
  const loaded = revision
    ? await revisionText(ref as string, revision, asked ?? 'yaml')
    : { text: definitionText(STARTER, asked ?? 'yaml'), format: asked ?? 'yaml', authored: false };
  let format: Format = loaded.format;
  let startText = loaded.text;
  if (asked !== undefined && asked !== format) {
    startText = convert(startText, asked) ?? startText;
    format = asked;
  }
  let saved = startText;
  const managed = managedFromGit(workflow);

  const graphSlot = h('div', { class: 'editor-graph' });
  const problemList = h('ul', { class: 'problem-list', 'aria-live': 'polite' });
  const status = h('span', { class: 'editor-status', role: 'status', 'data-lint': 'pending' }, 'Checking…');
  const outcome = h('div', { class: 'problem' });
  const notes = h('textarea', { id: 'release-notes', name: 'releaseNotes', rows: 2, maxlength: RELEASE_NOTES_MAX });
  const host = h('div', { class: 'editor-code' });
  const publishButton = h('button', { type: 'button', class: 'primary', 'data-action': 'publish' }, 'Publish');
  const formatButtons = (['yaml', 'json'] as const).map((f) =>
    h('button', { type: 'button', 'data-format': f, 'aria-pressed': String(f === format) }, f.toUpperCase()),
  );
  const cannotPublish = !mayWrite
    ? 'You may not publish this workflow.'
    : ref && !key
      ? 'This workflow has no key: the API adds revisions by key (PUT /workflows/definitions/{key}), so it can be read here but not published.'
      : undefined;

  let lastGraph = '';
  let editedAt = performance.now();
  const checker = problemChecker(() => editor.view, {
    endpoint: ref ? `/workflows/definitions/${ref}/validate` : '/workflows/definitions/validate',
    format: () => format,
    extra: () => (key ? { key } : {}),
    onParsed(value) {
      const graph = graphOf(value);
      const drawn = JSON.stringify(graph);
      if (drawn === lastGraph) return;
      lastGraph = drawn;
      mount(graphSlot, graphView(graph).element);
    },
    onState(state, diagnostics, detail) {
      status.setAttribute('data-lint', state);
      status.setAttribute('data-lines', String(editor.view.state.doc.lines));
      if (state !== 'pending') status.setAttribute('data-lint-ms', (performance.now() - editedAt).toFixed(1));
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      const warnings = diagnostics.length - errors;
      status.textContent =
        state === 'pending'
          ? 'Checking…'
          : state === 'clean'
            ? warnings > 0
              ? `Valid, ${warnings} warning${warnings === 1 ? '' : 's'}`
              : 'Valid'
            : state === 'syntax'
              ? `Not valid ${format.toUpperCase()}`
              : state === 'unavailable'
                ? `Not checked: ${detail ?? ''}`
                : `${errors} problem${errors === 1 ? '' : 's'}`;
      if (state !== 'pending') listProblems(diagnostics);
    },
  });

  const listProblems = (diagnostics: readonly Diagnostic[]) => {
    const doc = editor.view.state.doc;
    mount(
      problemList,
      ...diagnostics.map((d) => {
        const line = doc.lineAt(Math.min(d.from, doc.length)).number;
        return h(
          'li',
          { class: `severity-${d.severity}`, 'data-line': line },
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                editor.view.dispatch({ selection: EditorSelection.cursor(d.from), scrollIntoView: true });
                editor.view.focus();
              },
            },
            `line ${line}`,
          ),
          ` ${d.severity}: ${d.message}`,
        );
      }),
    );
  };

  const dirty = () => editor.view.state.doc.toString() !== saved || notes.value.trim() !== '';
  const publish = async () => {
    mount(outcome);
    if (cannotPublish) return mount(outcome, h('p', { class: 'error-text' }, cannotPublish));
    const typed = editor.view.state.doc.toString();
    const parsed = parseDefinition(typed, format);
    if (!parsed.ok) return mount(outcome, h('p', { class: 'error-text' }, 'Fix the syntax errors first.'));
    if (managed && !confirmEditOfManaged(managed)) return;
    const releaseNotes = notes.value.trim();
    publishButton.disabled = true;
    try {
      // What the author typed is sent as it is (the server keeps it as the revision's source); the key is the URL's.
      const target = key && ref ? `/workflows/definitions/${enc(key)}` : '/workflows/definitions';
      const result = await api<Json>(`${target}${q({ releaseNotes: releaseNotes || undefined })}`, {
        method: key && ref ? 'PUT' : 'POST',
        textBody: { text: typed, contentType: CONTENT_TYPES[format] },
      });
      saved = typed;
      notes.value = '';
      const published = result.workflow as Json;
      const number = Number((result.revision as Json).revision);
      navigate(`/console/workflows/${enc(text(published.key ?? published.id))}${q({ revision: number })}`);
    } catch (error) {
      mount(outcome, errorState(error));
      if (error instanceof ApiError && Array.isArray(error.body?.errors)) checker.show(error.body.errors as Problem[]);
    } finally {
      publishButton.disabled = false;
    }
  };
  publishButton.addEventListener('click', () => void publish());

  const editor: CodeEditor = codeEditor(host, startText, {
    format,
    completion: definitionCompletion(() => plugins.data),
    onChange: () => {
      editedAt = performance.now();
      checker.changed();
    },
    onSave: () => void publish(),
  });
  for (const button of formatButtons) {
    button.addEventListener('click', () => {
      const to = button.getAttribute('data-format') as Format;
      if (to === format) return;
      const next = convert(editor.view.state.doc.toString(), to);
      if (next === undefined) return mount(outcome, h('p', { class: 'error-text' }, `Fix the syntax errors before switching to ${to}.`));
      const unchanged = editor.view.state.doc.toString() === saved;
      format = to;
      if (unchanged) saved = next;
      editor.setFormat(to, next);
      for (const b of formatButtons) b.setAttribute('aria-pressed', String(b === button));
    });
  }

  const title = workflow ? `Edit ${text(workflow.name)}` : 'New workflow';
  mount(
    main,
    h('h1', {}, title),
    h(
      'p',
      { class: 'meta' },
      ...(workflow
        ? [
            `Based on revision ${base} of `,
            link(`/console/workflows/${ref}${q({ revision: base })}`, text(workflow.key ?? workflow.id)),
            numbers.length > 1 ? ' · ' : null,
            numbers.length > 1
              ? link(`/console/workflows/${ref}/diff${q({ from: numbers[1], to: numbers[0] })}`, 'Compare revisions')
              : null,
          ]
        : ['Not published yet: Publish makes this revision 1 of a new workflow, with the alias latest.']),
    ),
    h(
      'div',
      { class: 'editor-toolbar' },
      h('span', { class: 'format-toggle', role: 'group', 'aria-label': 'Format' }, ...formatButtons),
      h('label', { for: 'release-notes' }, 'Release notes'),
      notes,
      publishButton,
      status,
    ),
    managed ? managedBanner(managed, true) : null,
    revision && !loaded.authored
      ? h(
          'p',
          { class: 'hint', 'data-source': 'rendered' },
          `Shown as stored: revision ${base} keeps no author's text to edit (published before texts were kept, or as one line of JSON).`,
        )
      : null,
    cannotPublish ? h('p', { class: 'state empty' }, cannotPublish) : null,
    outcome,
    h(
      'div',
      { class: 'editor-layout' },
      host,
      h(
        'aside',
        { class: 'editor-side' },
        h('h2', {}, 'Graph'),
        graphSlot,
        h('h2', {}, 'Problems'),
        problemList,
        h('p', { class: 'hint' }, 'Ctrl/Cmd-Space completes; Ctrl/Cmd-S publishes.'),
      ),
    ),
  );
  checker.changed();
  editor.view.focus();

  // Unpublished work is not lost by a click or a closed tab without asking.
  const beforeUnload = (event: BeforeUnloadEvent) => {
    if (dirty()) event.preventDefault();
  };
  const guardLinks = (event: MouseEvent) => {
    const anchor = (event.target as Element).closest?.('a[href]');
    if (!anchor || !dirty()) return;
    if (!confirm('Leave the editor? Your changes are not published.')) {
      event.preventDefault();
      event.stopImmediatePropagation();
    } else saved = editor.view.state.doc.toString();
  };
  window.addEventListener('beforeunload', beforeUnload);
  document.addEventListener('click', guardLinks, true);
  return () => {
    window.removeEventListener('beforeunload', beforeUnload);
    document.removeEventListener('click', guardLinks, true);
    checker.dispose();
    editor.view.destroy();
  };
};
