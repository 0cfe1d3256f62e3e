/** Executions, newest first, filtered by status and workflow, paged. */
import { api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';
import { pager } from './workflows';

export const STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'];
const PAGE_SIZE = 25;

export const executionsView: View = async (main, _params, query) => {
  const status = query.get('status') ?? '';
  const workflowId = query.get('workflowId') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const statusSelect = h(
    'select',
    { name: 'status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'Any status'),
    ...STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)),
  );
  const workflowInput = h('input', {
    type: 'text',
    name: 'workflowId',
    value: workflowId,
    placeholder: 'Workflow id or key',
    'aria-label': 'Workflow',
  });
  const form = h('form', { class: 'filters' }, statusSelect, workflowInput, h('button', { type: 'submit' }, 'Filter'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/executions${q({ status: statusSelect.value, workflowId: workflowInput.value.trim() })}`);
  });
  const list = h('section', {}, loading());
  mount(main, h('h1', {}, 'Executions'), form, list);
  let result: Page<Json> & { totalCapped?: boolean };
  try {
    result = await api<Page<Json> & { totalCapped?: boolean }>(`/workflows/executions${q({ status, workflowId, page, limit: PAGE_SIZE })}`);
  } catch (error) {
    return mount(list, errorState(error));
  }
  if (result.data.length === 0)
    return mount(list, empty(status || workflowId ? 'No execution matches these filters.' : 'No executions yet.'));
  mount(
    list,
    h(
      'table',
      { class: 'executions' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Execution'),
          h('th', {}, 'Workflow'),
          h('th', {}, 'Status'),
          h('th', {}, 'Started'),
          h('th', {}, 'Finished'),
        ),
      ),
      h(
        'tbody',
        {},
        ...result.data.map((run) =>
          h(
            'tr',
            { 'data-execution': text(run.id) },
            h('td', {}, link(`/console/executions/${enc(text(run.id))}`, h('code', {}, text(run.id)))),
            h(
              'td',
              {},
              link(`/console/workflows/${enc(text(run.workflowId))}`, text(run.workflowKey ?? run.workflowId)),
              ` #${Number(run.revision)}`,
            ),
            h('td', {}, statusBadge(text(run.status))),
            h('td', {}, formatTime(run.createdAt)),
            h('td', {}, formatTime(run.completedAt)),
          ),
        ),
      ),
    ),
    pager(result, (p) => `/console/executions${q({ status, workflowId, page: p })}`),
  );
};

export const statusBadge = (status: string): HTMLElement => h('span', { class: `badge status-${status}`, 'data-status': status }, status);
