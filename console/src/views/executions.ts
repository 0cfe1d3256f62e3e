/**
 * Executions, newest first: search by id, filters (status, workflow, time range) kept in
 * the URL, a duration that runs on while the execution does, and paging by the API's
 * cursor (Next holds at any depth; `total` is counted up to 1000, shown as "1000+").
 */
import { api, ApiError, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';
import { duration } from './readable';

export const STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated'];
/** What the list filters by: the counted statuses and `queued` (held by flow control, not counted by the stats). */
export const LISTED_STATUSES = ['queued', ...STATUSES];
const PAGE_SIZE = 25;
/** Previous goes back by offset only this deep (an offset page reads every row before it); deeper, First. */
const OFFSET_PAGES = 40;

/** Time-range presets: their name in the URL, label and length. */
export const RANGES: Array<{ name: string; label: string; ms: number }> = [
  { name: '1h', label: 'Last hour', ms: 3_600_000 },
  { name: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { name: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
];

interface Filters {
  status: string;
  workflowId: string;
  range: string;
  /** ISO; a preset's start is pinned here once the list is paged, so the cursor's filters stay the same. */
  from: string;
  to: string;
}

type ExecutionPage = Page<Json> & { totalCapped?: boolean; nextCursor?: string | null };

export const executionsView: View = async (main, _params, query) => {
  const searchedId = (query.get('id') ?? '').trim();
  const filters = withPinnedStart(filtersOf(query));
  const page = Math.max(1, Number(query.get('page')) || 1);
  const cursor = query.get('cursor') ?? '';

  const search = h('input', {
    type: 'search',
    name: 'id',
    value: searchedId,
    placeholder: 'exec_…',
    'aria-label': 'Execution id',
  });
  const searchForm = h('form', { class: 'filters', role: 'search' }, search, h('button', { type: 'submit' }, 'Find execution'));
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/executions${q({ id: search.value.trim() })}`);
  });

  const list = h('section', {}, loading());
  const form = filterForm(filters);
  mount(main, h('h1', {}, 'Executions'), searchForm, form, list);
  void fillWorkflowOptions(form.querySelector('select[name=workflowId]')!, filters.workflowId);

  if (searchedId !== '') {
    // An exact id: straight to the execution (replacing this address, so Back returns to the list).
    try {
      await api<Json>(`/workflows/executions/${enc(searchedId)}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return mount(list, empty(`No execution "${searchedId}" is visible to you.`));
      return mount(list, errorState(error));
    }
    return navigate(`/console/executions/${enc(searchedId)}`, true);
  }

  let result: ExecutionPage;
  try {
    result = await api<ExecutionPage>(
      `/workflows/executions${q({ ...apiFilters(filters), page: cursor ? undefined : page, cursor: cursor || undefined, limit: PAGE_SIZE })}`,
    );
  } catch (error) {
    return mount(list, errorState(error));
  }
  const filtered = filters.status || filters.workflowId || filters.range;
  if (result.data.length === 0) return mount(list, empty(filtered ? 'No execution matches these filters.' : 'No executions yet.'));

  const durations: Array<[HTMLElement, Json]> = [];
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
          h('th', {}, 'Trigger'),
          h('th', {}, 'Started'),
          h('th', {}, 'Duration'),
        ),
      ),
      h(
        'tbody',
        {},
        ...result.data.map((run) => {
          const duration = h('td', { class: 'duration' }, durationOf(run));
          durations.push([duration, run]);
          return h(
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
            h('td', { class: 'trigger' }, text((run.trigger as Json | undefined)?.source)),
            h('td', {}, formatTime(run.createdAt)),
            duration,
          );
        }),
      ),
    ),
    cursorPager(result, filters),
  );
  // Running and waiting executions: their duration goes on, once a second, until the user leaves the page.
  const live = durations.filter(([, run]) => run.completedAt === undefined);
  if (live.length === 0) return;
  const timer = setInterval(() => {
    for (const [cell, run] of live) cell.textContent = durationOf(run);
  }, 1000);
  return () => clearInterval(timer);
};

function filtersOf(query: URLSearchParams): Filters {
  return {
    status: query.get('status') ?? '',
    workflowId: query.get('workflowId') ?? '',
    range: query.get('range') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
}

/**
 * A preset's start, computed once (now), unless the address pinned it: the pages after
 * the first carry it, as the cursor continues only the list of exactly these filters.
 */
function withPinnedStart(filters: Filters): Filters {
  const preset = RANGES.find((r) => r.name === filters.range);
  if (!preset || filters.from) return filters;
  return { ...filters, from: new Date(Date.now() - preset.ms).toISOString() };
}

function apiFilters(filters: Filters): Record<string, string | undefined> {
  return {
    status: filters.status || undefined,
    workflowId: filters.workflowId || undefined,
    from: filters.range && filters.from ? filters.from : undefined,
    to: filters.range === 'custom' && filters.to ? filters.to : undefined,
  };
}

/** The address of a list with these filters (`extra`: paging). */
function listHref(filters: Filters, extra: Record<string, string | number | undefined> = {}): string {
  return `/console/executions${q({ ...apiFilters(filters), range: filters.range, ...extra })}`;
}

function filterForm(filters: Filters): HTMLFormElement {
  const statusSelect = h(
    'select',
    { name: 'status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'Any status'),
    ...LISTED_STATUSES.map((s) => h('option', { value: s, selected: s === filters.status }, s)),
  );
  const workflowSelect = h(
    'select',
    { name: 'workflowId', 'aria-label': 'Workflow' },
    h('option', { value: '' }, 'Any workflow'),
    filters.workflowId ? h('option', { value: filters.workflowId, selected: true }, filters.workflowId) : null,
  );
  const rangeSelect = h(
    'select',
    { name: 'range', 'aria-label': 'Time range' },
    h('option', { value: '' }, 'Any time'),
    ...RANGES.map((r) => h('option', { value: r.name, selected: r.name === filters.range }, r.label)),
    h('option', { value: 'custom', selected: filters.range === 'custom' }, 'Custom…'),
  );
  const fromInput = h('input', { type: 'datetime-local', name: 'from', value: localInput(filters.from), step: 1 });
  const toInput = h('input', { type: 'datetime-local', name: 'to', value: localInput(filters.to), step: 1 });
  const custom = h(
    'span',
    { class: 'custom-range', hidden: filters.range !== 'custom' },
    h('label', {}, 'From ', fromInput),
    h('label', {}, 'to ', toInput),
  );
  rangeSelect.addEventListener('change', () => {
    custom.hidden = rangeSelect.value !== 'custom';
  });
  const form = h(
    'form',
    { class: 'filters' },
    h('label', {}, 'Status ', statusSelect),
    h('label', {}, 'Workflow ', workflowSelect),
    h('label', {}, 'Started ', rangeSelect),
    custom,
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const custom = rangeSelect.value === 'custom';
    navigate(
      listHref({
        status: statusSelect.value,
        workflowId: workflowSelect.value,
        range: rangeSelect.value,
        from: custom && fromInput.value ? new Date(fromInput.value).toISOString() : '',
        to: custom && toInput.value ? new Date(toInput.value).toISOString() : '',
      }),
    );
  });
  return form;
}

/** The workflow select's options: the organization's workflows by name (the first 200). */
async function fillWorkflowOptions(select: HTMLSelectElement, chosen: string): Promise<void> {
  let workflows: Json[];
  try {
    workflows = (await api<Page<Json>>(`/workflows/definitions${q({ limit: 200 })}`)).data;
  } catch {
    return; // The select keeps "Any workflow" and the chosen one.
  }
  // The chosen one (an id or a key) shown by its workflow's name when it is one of these.
  const match = workflows.find((wf) => text(wf.id) === chosen || text(wf.key) === chosen);
  if (match) select.querySelector(`option[value="${CSS.escape(chosen)}"]`)?.remove();
  for (const wf of workflows) {
    const id = text(wf.id);
    select.append(h('option', { value: id, selected: match === wf }, `${text(wf.name)}${wf.key ? ` (${text(wf.key)})` : ''}`));
  }
}

/** The pager: Next by the API's cursor (any depth); Previous by offset near the start, else First. */
function cursorPager(result: ExecutionPage, filters: Filters): HTMLElement {
  const pages = Math.max(1, Math.ceil(result.total / result.limit));
  const more = result.totalCapped === true;
  const at = result.page;
  return h(
    'div',
    { class: 'pager' },
    at > 2 ? link(listHref(filters), '« First') : null,
    at > 1 && at - 1 <= OFFSET_PAGES ? link(listHref(filters, { page: at - 1 }), '← Previous') : null,
    h('span', {}, more ? ` page ${at} of ${Math.max(pages, at)}+ (${result.total}+) ` : ` page ${at} of ${pages} (${result.total}) `),
    result.nextCursor ? link(listHref(filters, { page: at + 1, cursor: result.nextCursor }), 'Next →') : null,
  );
}

/** `datetime-local` wants local time without a zone. */
function localInput(iso: string): string {
  const date = new Date(iso);
  if (iso === '' || Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

/** Ended: completedAt − createdAt; running or waiting: since it started, until now. */
export function durationOf(run: Json): string {
  const start = Date.parse(text(run.createdAt));
  const end = run.completedAt !== undefined ? Date.parse(text(run.completedAt)) : Date.now();
  if (Number.isNaN(start) || Number.isNaN(end)) return '';
  return duration(end - start);
}

export const statusBadge = (status: string): HTMLElement => h('span', { class: `badge status-${status}`, 'data-status': status }, status);
