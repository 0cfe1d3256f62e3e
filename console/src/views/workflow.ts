/** One workflow: its revisions, aliases (activate, deactivate, webhook URLs) and the graph of a revision. */
import { api, ApiError, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { graphOf } from '../graph/model';
import { graphView } from '../graph/view';
import { navigate, type View } from '../nav';
import { managedBanner, managedFromGit } from '../editor/managed';
import { can } from '../session';
import { empty, errorState, loading } from '../states';
import { queueSection } from './queue';
import { declaredInputs, runForm, type RunForm } from './run-form';
import { stepDefinition } from './step-definition';

export const workflowView: View = async (main, [id], query) => {
  mount(main, loading());
  const ref = enc(id);
  const [workflow, revisions, aliases] = await Promise.all([
    api<Json>(`/workflows/definitions/${ref}`),
    api<Page<Json>>(`/workflows/definitions/${ref}/revisions${q({ limit: 100 })}`),
    api<{ data: Json[] }>(`/workflows/definitions/${ref}/aliases`),
  ]);
  const nrn = typeof workflow.nrn === 'string' ? workflow.nrn : undefined;
  const [mayWrite, mayExecute, mayCancel] = await Promise.all([
    can('workflow:write', nrn),
    can('workflow:execute', nrn),
    can('execution:cancel', nrn),
  ]);
  const numbers = revisions.data.map((r) => Number(r.revision)).sort((a, b) => b - a);
  const chosen = Number(query.get('revision')) || numbers[0];
  const problem = h('div', { class: 'problem' });
  const managed = managedFromGit(workflow);

  // Run: a form of the declared inputs, built once the revision is read.
  const runSlot = mayExecute ? h('section', { class: 'run-slot' }, loading('Reading the declared inputs…')) : null;
  const runProblem = h('div', { class: 'problem' });
  // Without a manual trigger, a run fires one of the others now (docs/api.md, "Running by hand"): the choice, when several.
  let triggerChoice: HTMLSelectElement | undefined;
  const run = async (inputs: Json, form: RunForm) => {
    try {
      const triggerId = triggerChoice?.value;
      const started = await api<Json>(`/workflows/definitions/${ref}/execute`, {
        method: 'POST',
        body: { revision: chosen, inputs, ...(triggerId ? { triggerId } : {}) },
      });
      navigate(`/console/executions/${enc(text(started.executionId))}`);
    } catch (error) {
      mount(runProblem, errorState(error));
      form.showApiErrors(error);
    }
  };

  const graphSlot = h('section', { class: 'graph-slot' }, loading('Drawing the graph…'));
  const stepPanel = h(
    'aside',
    { class: 'step-panel' },
    empty('Select a step in the graph (click, or arrow keys and Enter) to see its definition.'),
  );
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
    managed ? managedBanner(managed, false) : null,
    problem,
    h('h2', {}, `Graph of revision ${chosen}`),
    h('div', { class: 'workflow-body' }, graphSlot, stepPanel),
    runSlot ? h('h2', {}, `Run revision ${chosen}`) : null,
    runSlot,
    runProblem,
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
      h('section', { class: 'aliases' }, h('h2', {}, 'Aliases'), aliasTable(ref, aliases.data, mayWrite, problem, numbers[0])),
    ),
    queueSection(text(workflow.id), mayCancel),
  );

  try {
    const revision = await api<Json>(`/workflows/definitions/${ref}/revisions/${chosen}`);
    const definition = revision.definition as Json | null;
    const showStep = (stepId: string) => {
      graph.select(stepId);
      mount(stepPanel, stepDefinition(definition, stepId));
      // The open step stays in the address (a link to it), without a new history entry or a re-render.
      const url = new URL(location.href);
      url.searchParams.set('step', stepId);
      history.replaceState(null, '', url.pathname + url.search);
    };
    const graph = graphView(graphOf(definition), { onSelect: showStep });
    mount(graphSlot, graph.element);
    const opened = query.get('step');
    if (opened) showStep(opened);
    if (runSlot) {
      const form = runForm(declaredInputs(definition), {
        label: `Run revision ${chosen}`,
        problem: runProblem,
        submit: (inputs) => run(inputs, form),
      });
      const choice = triggerPicker(definition);
      triggerChoice = choice?.select;
      mount(runSlot, choice?.element ?? null, form.element);
    }
  } catch (error) {
    mount(graphSlot, errorState(error));
  }
};

/**
 * Aliases with what their state means: `active` says the alias's triggers (webhook, cron…) are
 * registered, nothing more: a manual run (the form above, POST …/execute) runs any revision
 * whatever the state, so `latest`, which publishing never activates, still runs. `latest` is
 * marked as following the newest revision, and a manual trigger reads "runs on request".
 */
function aliasTable(ref: string, aliases: Json[], mayWrite: boolean, problem: HTMLElement, newest: number | undefined): HTMLElement {
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
  const table = h(
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
          h(
            'td',
            {},
            name,
            name === 'latest'
              ? h('div', { class: 'alias-note', 'data-note': 'latest' }, `follows the newest revision${newest ? ` (#${newest})` : ''}`)
              : null,
          ),
          h('td', {}, `#${Number(alias.revision)}`),
          h(
            'td',
            {},
            h(
              'span',
              {
                class: `badge ${alias.active ? 'on' : 'off'}`,
                'data-state': alias.active ? 'active' : 'inactive',
                title: alias.active
                  ? 'Its triggers are registered: webhooks answer, schedules fire.'
                  : 'Its webhook and cron triggers are not registered. Manual runs work anyway.',
              },
              alias.active ? 'triggers active' : 'triggers inactive',
            ),
          ),
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
                    const manual = state.pluginType === 'manual';
                    return h(
                      'li',
                      { 'data-trigger': trigger },
                      manual && !alias.active ? `${trigger} (manual): runs on request` : `${trigger}: ${text(state.status)}`,
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
  return h(
    'div',
    {},
    table,
    h(
      'p',
      { class: 'alias-note', 'data-note': 'state' },
      'Active means the alias’s webhook and cron triggers are registered. Running from this page (or POST …/execute) works whatever the state; ',
      h('code', {}, 'latest'),
      ' follows the newest revision and is active only once activated.',
    ),
  );
}

/**
 * What a run by hand fires when the revision has no manual trigger: a note naming its only trigger (run now), or,
 * with several, a required choice among them (the API refuses a start that names none).
 */
function triggerPicker(definition: Json | null): { element: HTMLElement; select?: HTMLSelectElement } | undefined {
  const triggers = Object.entries((definition?.steps ?? {}) as Record<string, Json>)
    .filter(([, step]) => step?.type === 'trigger')
    .map(([id, step]) => ({ id, kind: text(step.pluginType) }));
  if (triggers.length === 0 || triggers.some((trigger) => trigger.kind === 'manual')) return undefined;
  if (triggers.length === 1) {
    const [only] = triggers;
    return {
      element: h(
        'p',
        { class: 'meta', 'data-run-trigger': only.id },
        `No manual trigger: a run fires ${only.id} (${only.kind}) now`,
        only.kind === 'cron' ? ', as a tick would.' : only.kind === 'webhook' ? ', with the inputs as the request body.' : '.',
      ),
    };
  }
  const select = h(
    'select',
    { name: 'triggerId', required: true, 'aria-label': 'Trigger to fire' },
    ...triggers.map((trigger) => h('option', { value: trigger.id }, `${trigger.id} (${trigger.kind})`)),
  );
  return { element: h('label', { class: 'field', 'data-run-trigger': 'choose' }, 'Trigger to fire now ', select), select };
}
