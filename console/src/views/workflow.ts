/** One workflow: its revisions, aliases (activate, deactivate, webhook URLs) and the graph of a revision. */
import { api, ApiError, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { graphOf } from '../graph/model';
import { graphView } from '../graph/view';
import { navigate, type View } from '../nav';
import { can } from '../session';
import { empty, errorState, loading } from '../states';

export const workflowView: View = async (main, [id], query) => {
  mount(main, loading());
  const ref = enc(id);
  const [workflow, revisions, aliases] = await Promise.all([
    api<Json>(`/workflows/definitions/${ref}`),
    api<Page<Json>>(`/workflows/definitions/${ref}/revisions${q({ limit: 100 })}`),
    api<{ data: Json[] }>(`/workflows/definitions/${ref}/aliases`),
  ]);
  const nrn = typeof workflow.nrn === 'string' ? workflow.nrn : undefined;
  const [mayWrite, mayExecute] = await Promise.all([can('workflow:write', nrn), can('workflow:execute', nrn)]);
  const numbers = revisions.data.map((r) => Number(r.revision)).sort((a, b) => b - a);
  const chosen = Number(query.get('revision')) || numbers[0];
  const problem = h('div', { class: 'problem' });

  // Run: the inputs as JSON, prefilled from the manual trigger's declared inputs once the revision is read.
  const inputs = h('textarea', { name: 'inputs', rows: 3, 'aria-label': 'Inputs (JSON object)' }, '{}');
  const runForm = mayExecute
    ? h(
        'form',
        { class: 'run-form' },
        h('label', {}, 'Inputs (JSON)'),
        inputs,
        h('button', { type: 'submit', class: 'primary', 'data-action': 'run' }, `Run revision ${chosen}`),
      )
    : null;
  runForm?.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  const run = async () => {
    mount(problem);
    let body: unknown;
    try {
      body = JSON.parse(inputs.value || '{}');
    } catch {
      return mount(problem, h('p', { class: 'error-text' }, 'The inputs are not valid JSON.'));
    }
    try {
      const started = await api<Json>(`/workflows/definitions/${ref}/execute`, {
        method: 'POST',
        body: { revision: chosen, inputs: body },
      });
      navigate(`/console/executions/${enc(text(started.executionId))}`);
    } catch (error) {
      mount(problem, errorState(error));
    }
  };

  const graphSlot = h('section', { class: 'graph-slot' }, loading('Drawing the graph…'));
  mount(
    main,
    h('h1', {}, text(workflow.name)),
    h(
      'p',
      { class: 'meta' },
      workflow.key ? h('code', {}, text(workflow.key)) : null,
      ` ${text(workflow.id)} · folder ${text(workflow.path ?? '/')} · ${nrn ?? ''} · updated ${formatTime(workflow.updatedAt)}`,
    ),
    h(
      'div',
      { class: 'actions' },
      link(`/console/executions${q({ workflowId: text(workflow.id) })}`, 'Executions'),
      link(`/console/config${q({ workflow: text(workflow.id) })}`, 'Config entries'),
      link(`/console/workflows/${ref}/edit${q({ revision: chosen })}`, mayWrite ? 'Edit definition' : 'View definition'),
      numbers.length > 1
        ? link(
            `/console/workflows/${ref}/diff${q(chosen === numbers[numbers.length - 1] ? { from: chosen, to: numbers[0] } : { from: numbers.find((n) => n < chosen), to: chosen })}`,
            'Compare revisions',
          )
        : null,
    ),
    runForm,
    problem,
    h(
      'div',
      { class: 'columns' },
      h(
        'section',
        { class: 'revisions' },
        h('h2', {}, 'Revisions'),
        h(
          'ul',
          {},
          ...revisions.data.map((r) =>
            h(
              'li',
              { class: Number(r.revision) === chosen ? 'current' : undefined },
              link(`/console/workflows/${ref}${q({ revision: Number(r.revision) })}`, `#${Number(r.revision)}`),
              ` ${r.semanticVersion ? text(r.semanticVersion) + ' · ' : ''}${formatTime(r.createdAt)}${r.releaseNotes ? ' — ' + text(r.releaseNotes) : ''}`,
            ),
          ),
        ),
      ),
      h('section', { class: 'aliases' }, h('h2', {}, 'Aliases'), aliasTable(ref, aliases.data, mayWrite, problem)),
    ),
    h('h2', {}, `Graph of revision ${chosen}`),
    graphSlot,
  );

  try {
    const revision = await api<Json>(`/workflows/definitions/${ref}/revisions/${chosen}`);
    const definition = revision.definition as Json | null;
    mount(graphSlot, graphView(graphOf(definition)).element);
    if (inputs.value === '{}') inputs.value = inputsTemplate(definition);
  } catch (error) {
    mount(graphSlot, errorState(error));
  }
};

function aliasTable(ref: string, aliases: Json[], mayWrite: boolean, problem: HTMLElement): HTMLElement {
  if (aliases.length === 0) return empty('No aliases.');
  const toggle = async (alias: string, action: 'activate' | 'deactivate') => {
    mount(problem);
    try {
      await api(`/workflows/definitions/${ref}/aliases/${enc(alias)}/${action}`, { method: 'POST' });
      navigate(location.pathname + location.search, true);
    } catch (error) {
      mount(problem, errorState(error));
      if (error instanceof ApiError && error.status === 401) navigate('/console/sign-in');
    }
  };
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'Alias'), h('th', {}, 'Revision'), h('th', {}, 'State'), h('th', {}, 'Triggers'), h('th', {}, '')),
    ),
    h(
      'tbody',
      {},
      ...aliases.map((alias) => {
        const name = text(alias.name);
        const states = Object.entries((alias.triggerStates ?? {}) as Record<string, Json>);
        return h(
          'tr',
          { 'data-alias': name },
          h('td', {}, name),
          h('td', {}, `#${Number(alias.revision)}`),
          h('td', {}, h('span', { class: `badge ${alias.active ? 'on' : 'off'}` }, alias.active ? 'active' : 'inactive')),
          h(
            'td',
            {},
            states.length === 0
              ? '—'
              : h(
                  'ul',
                  { class: 'triggers' },
                  ...states.map(([trigger, state]) => {
                    const url = (state.runtimeMetadata as Json | undefined)?.webhookUrl;
                    const error = (state.lastError as Json | undefined)?.message;
                    return h(
                      'li',
                      {},
                      `${trigger}: ${text(state.status)}`,
                      typeof url === 'string' ? h('div', {}, h('code', { class: 'webhook' }, url)) : null,
                      typeof error === 'string' ? h('div', { class: 'error-text' }, error) : null,
                    );
                  }),
                ),
          ),
          h(
            'td',
            {},
            mayWrite
              ? alias.active
                ? h('button', { type: 'button', 'data-action': 'deactivate', onclick: () => void toggle(name, 'deactivate') }, 'Deactivate')
                : h('button', { type: 'button', 'data-action': 'activate', onclick: () => void toggle(name, 'activate') }, 'Activate')
              : null,
          ),
        );
      }),
    ),
  );
}

/** `{}` with the declared inputs of the manual triggers, each with an empty value of its type, to fill in. */
function inputsTemplate(definition: Json | null): string {
  const steps = Object.values((definition?.steps ?? {}) as Record<string, Json>);
  const template: Json = {};
  for (const step of steps) {
    if (step.type !== 'trigger') continue;
    const declared = ((step.config as Json | undefined)?.inputs ?? {}) as Record<string, Json>;
    for (const [name, spec] of Object.entries(declared)) {
      const type = spec?.type;
      template[name] =
        type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false : type === 'object' ? {} : type === 'array' ? [] : '';
    }
  }
  return Object.keys(template).length === 0 ? '{}' : JSON.stringify(template, null, 2);
}
