/**
 * Every trigger binding of the organization's aliases: kind, workflow, alias, state (with
 * why it is not active), the next run of a schedule (as Temporal says) and a webhook's URL.
 */
import { api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';

const STATES: Array<[string, string]> = [
  ['live', 'active'],
  ['inactive', 'inactive'],
  ['failed', 'failed'],
  ['pending', 'pending'],
];

export const triggersView: View = async (main, _params, query) => {
  const kind = query.get('kind') ?? '';
  const state = query.get('status') ?? '';
  const kindSelect = h('select', { name: 'kind', 'aria-label': 'Kind' }, h('option', { value: '' }, 'Any kind'));
  const stateSelect = h(
    'select',
    { name: 'status', 'aria-label': 'State' },
    h('option', { value: '' }, 'Any state'),
    ...STATES.map(([value, label]) => h('option', { value, selected: value === state }, label)),
  );
  const form = h(
    'form',
    { class: 'filters' },
    h('label', {}, 'Kind ', kindSelect),
    h('label', {}, 'State ', stateSelect),
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/triggers${q({ kind: kindSelect.value, status: stateSelect.value })}`);
  });
  const list = h('section', {}, loading());
  mount(main, h('h1', {}, 'Triggers'), form, list);

  let bindings: Json[];
  let names: Map<string, string>;
  try {
    const [triggers, workflows] = await Promise.all([
      api<{ data: Json[] }>(`/workflows/triggers${q({ status: state || undefined, includeNextRun: 'true' })}`),
      api<Page<Json>>(`/workflows/definitions${q({ limit: 200 })}`).catch((): Page<Json> => ({ data: [], page: 1, limit: 200, total: 0 })),
    ]);
    bindings = triggers.data;
    names = new Map(workflows.data.map((wf) => [text(wf.id), text(wf.name ?? wf.key ?? wf.id)]));
  } catch (error) {
    return mount(list, errorState(error));
  }
  const kinds = [...new Set(bindings.map((b) => text(b.pluginType)))].sort();
  if (kind && !kinds.includes(kind)) kinds.push(kind);
  kindSelect.append(...kinds.map((k) => h('option', { value: k, selected: k === kind }, k)));
  const shown = kind ? bindings.filter((b) => b.pluginType === kind) : bindings;
  if (shown.length === 0)
    return mount(
      list,
      empty(kind || state ? 'No trigger matches these filters.' : 'No triggers yet: activate an alias to register its triggers.'),
    );

  mount(
    list,
    h(
      'table',
      { class: 'triggers-list' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Kind'),
          h('th', {}, 'Workflow'),
          h('th', {}, 'Alias'),
          h('th', {}, 'Trigger'),
          h('th', {}, 'State'),
          h('th', {}, 'Next run'),
          h('th', {}, 'Webhook URL'),
        ),
      ),
      h('tbody', {}, ...shown.map((binding) => row(binding, names))),
    ),
  );
};

function row(binding: Json, names: Map<string, string>): HTMLElement {
  const workflowId = text(binding.workflowId);
  const metadata = (binding.runtimeMetadata ?? {}) as Json;
  const status = text(binding.status);
  const error = (binding.lastError as Json | undefined)?.message;
  const reason =
    status === 'failed' && typeof error === 'string'
      ? error
      : status === 'inactive' && binding.deactivatedAt
        ? `deactivated ${formatTime(binding.deactivatedAt)}`
        : status === 'pending'
          ? 'being registered'
          : '';
  return h(
    'tr',
    { 'data-trigger': `${workflowId}/${text(binding.aliasName)}/${text(binding.triggerId)}`, 'data-kind': text(binding.pluginType) },
    h('td', {}, h('code', {}, text(binding.pluginType))),
    h('td', {}, link(`/console/workflows/${enc(workflowId)}`, names.get(workflowId) ?? workflowId)),
    h('td', {}, text(binding.aliasName), h('span', { class: 'meta' }, ` #${Number(binding.revision)}`)),
    h(
      'td',
      {},
      text(binding.triggerId),
      typeof metadata.schedule === 'string'
        ? h('div', { class: 'meta' }, h('code', {}, metadata.schedule), metadata.timezone ? ` ${text(metadata.timezone)}` : '')
        : null,
    ),
    h(
      'td',
      {},
      h('span', { class: `badge trigger-${status}`, 'data-status': status }, status === 'live' ? 'active' : status),
      reason ? h('div', { class: status === 'failed' ? 'error-text' : 'meta' }, reason) : null,
    ),
    h(
      'td',
      { class: 'next-run', 'data-next-run': typeof binding.nextRunAt === 'string' ? binding.nextRunAt : undefined },
      typeof binding.nextRunAt === 'string' ? formatTime(binding.nextRunAt) : '',
    ),
    h('td', {}, typeof metadata.webhookUrl === 'string' ? h('code', { class: 'webhook' }, metadata.webhookUrl) : ''),
  );
}
