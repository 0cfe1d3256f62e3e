/**
 * The timeline of an execution (a Gantt chart): one row per step run, and under
 * a run its attempts when it had several, each with a bar from start to end on
 * the run's common time axis. A running or waiting step is an open bar (to now);
 * failed runs and attempts are coloured. Rows are built once and updated in
 * place (bars are SVG rectangles in a 0–1000 wide box, stretched to the cell),
 * so a run of hundreds of steps stays quick while events arrive.
 */
import { api, q, type Json } from '../api';
import { h, mount, s, text } from '../dom';
import { empty, errorState } from '../states';
import { statusBadge } from './executions';
import { duration, ms } from './readable';

const WIDTH = 1000;
const PAGE = 200;
/** The run number of a skipped step's record. */
const SKIPPED_RUN = 0;

interface Row {
  key: string;
  stepId: string;
  run: number;
  status: string;
  start: number;
  end: number;
  tr: HTMLTableRowElement;
  bar: SVGRectElement;
  statusCell: HTMLElement;
  took: HTMLElement;
  attempts: Attempt[];
}

interface Attempt {
  status: string;
  start: number;
  end: number;
  tr: HTMLTableRowElement;
  bar?: SVGRectElement;
}

export interface Timeline {
  element: HTMLElement;
  /** Reads every recorded step run (page by page) and draws the rows. */
  load(): Promise<void>;
  /** A step event from the stream (`step.started`, `.completed`, `.failed`, `.skipped`, `wait.started`). */
  event(type: string, data: Json): void;
  /** The run's span: from its start to its end, or to now while it runs (`end` undefined). */
  setSpan(start: number, end: number | undefined): void;
  /** Re-places every bar (the axis grows with time while the run is live). */
  redraw(): void;
  select(stepId: string | undefined): void;
}

export function timeline(base: string, onSelect: (stepId: string, run: number) => void): Timeline {
  const rows = new Map<string, Row>();
  const latestRun = new Map<string, number>();
  const body = h('tbody', {});
  const axis = h('span', { class: 'axis meta' });
  const status = h('div', { class: 'timeline-status' });
  const table = h(
    'table',
    { class: 'timeline', 'aria-label': 'Timeline of the step runs' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Step'),
        h('th', { scope: 'col' }, 'Status'),
        h('th', { scope: 'col' }, 'Took'),
        h('th', { scope: 'col', class: 'bar-head' }, 'Timeline ', axis),
      ),
    ),
    body,
  );
  let spanStart = Number.NaN;
  let spanEnd: number | undefined;

  const axisEnd = () => spanEnd ?? Date.now();
  const place = (bar: SVGRectElement, begin: number, end: number | undefined) => {
    // A run known only by its end (a skipped step) is a sliver there.
    const start = Number.isFinite(begin) ? begin : (end ?? Number.NaN);
    const t0 = spanStart;
    const total = Math.max(axisEnd() - t0, 1);
    const from = Number.isFinite(start) ? Math.min(Math.max(start - t0, 0), total) : 0;
    const to = Number.isFinite(end ?? Number.NaN) ? Math.min(Math.max((end as number) - t0, from), total) : total;
    bar.setAttribute('x', ((from / total) * WIDTH).toFixed(1));
    // At least a sliver, so a step that took no time is still seen.
    bar.setAttribute('width', Math.max(((to - from) / total) * WIDTH, 2).toFixed(1));
  };
  const open = (status: string) => status === 'running' || status === 'waiting';
  const paint = (row: Row) => {
    const ended = Number.isFinite(row.end);
    // Only what changed is touched: a live run repaints every row each second.
    if (row.tr.getAttribute('data-status') !== row.status) {
      row.tr.setAttribute('data-status', row.status);
      mount(row.statusCell, statusBadge(row.status));
    }
    row.bar.setAttribute('class', `bar status-${row.status}${open(row.status) || !ended ? ' open' : ''}`);
    row.took.textContent = Number.isFinite(row.start) ? duration((ended ? row.end : Date.now()) - row.start) : '';
    place(row.bar, row.start, ended ? row.end : undefined);
    for (const attempt of row.attempts) if (attempt.bar) place(attempt.bar, attempt.start, attempt.end);
  };

  const upsert = (record: Json): Row | undefined => {
    const stepId = text(record.stepId);
    if (!stepId) return undefined;
    const run = Number(record.run ?? latestRun.get(stepId) ?? 1);
    const key = `${stepId}#${run}`;
    let row = rows.get(key);
    if (!row) {
      const bar = s('rect', { class: 'bar', y: 3, height: 14, rx: 2 });
      const statusCell = h('td', {});
      const took = h('td', { class: 'took' });
      const tr = h(
        'tr',
        { class: 'step-row', 'data-timeline-row': key, 'data-step': stepId, 'data-run': run },
        h(
          'th',
          { scope: 'row' },
          h('button', { type: 'button', class: 'link', onclick: () => onSelect(stepId, run) }, stepId, run > 1 ? ` (run ${run})` : ''),
        ),
        statusCell,
        took,
        h(
          'td',
          { class: 'bar-cell', onclick: () => onSelect(stepId, run) },
          s('svg', { viewBox: `0 0 ${WIDTH} 20`, preserveAspectRatio: 'none', class: 'bar-track', 'aria-hidden': 'true' }, bar),
        ),
      );
      row = {
        key,
        stepId,
        run,
        status: 'pending',
        start: ms(record.startedAt),
        end: ms(record.completedAt),
        tr,
        bar,
        statusCell,
        took,
        attempts: [],
      };
      rows.set(key, row);
      insertInOrder(row);
      if (run >= (latestRun.get(stepId) ?? 0)) latestRun.set(stepId, run);
    }
    if (typeof record.status === 'string') row.status = record.status;
    if (record.startedAt) row.start = ms(record.startedAt);
    if (record.completedAt) row.end = ms(record.completedAt);
    if (Array.isArray(record.attempts)) setAttempts(row, record.attempts as Json[]);
    paint(row);
    return row;
  };

  // Rows by start time, then end time (a row without one goes last); new rows mostly arrive last, so search from the end.
  const time = (t: number) => (Number.isFinite(t) ? t : Number.POSITIVE_INFINITY);
  const laterThan = (a: Row, b: Row) => time(a.start) > time(b.start) || (time(a.start) === time(b.start) && time(a.end) > time(b.end));
  const insertInOrder = (row: Row) => {
    let before: Element | null = null;
    for (let el = body.lastElementChild; el; el = el.previousElementSibling) {
      const other = rows.get(el.getAttribute('data-timeline-row') ?? '');
      if (!other) continue;
      if (!laterThan(other, row)) break;
      before = other.tr;
    }
    body.insertBefore(row.tr, before);
  };

  const setAttempts = (row: Row, attempts: Json[]) => {
    for (const old of row.attempts) old.tr.remove();
    row.attempts = attempts.map((attempt) => {
      const start = ms(attempt.startedAt);
      const bar = Number.isFinite(start)
        ? s('rect', { class: `bar attempt status-${text(attempt.status)}`, y: 5, height: 10, rx: 2 })
        : undefined;
      const error = attempt.error as Json | undefined;
      const tr = h(
        'tr',
        { class: 'attempt-row', 'data-attempt-of': row.key, 'data-attempt': text(attempt.attempt), 'data-status': text(attempt.status) },
        h('th', { scope: 'row', class: 'attempt-name' }, `attempt ${text(attempt.attempt)}`),
        h('td', {}, statusBadge(text(attempt.status))),
        h('td', { class: 'took' }, Number.isFinite(start) ? duration(ms(attempt.completedAt) - start) : ''),
        h(
          'td',
          { class: 'bar-cell', title: error ? `${text(error.code)}: ${text(error.message)}` : '' },
          bar
            ? s('svg', { viewBox: `0 0 ${WIDTH} 20`, preserveAspectRatio: 'none', class: 'bar-track', 'aria-hidden': 'true' }, bar)
            : h('span', { class: 'meta' }, 'retried by Temporal (no times recorded)'),
        ),
      );
      return { status: text(attempt.status), start, end: ms(attempt.completedAt), tr, bar };
    });
    let after: Element = row.tr;
    for (const attempt of row.attempts) {
      after.after(attempt.tr);
      after = attempt.tr;
    }
  };

  const renderAxis = () => {
    axis.textContent = Number.isFinite(spanStart) ? `0 → ${duration(axisEnd() - spanStart)}` : '';
  };

  const load = async () => {
    try {
      for (let page = 1; ; page += 1) {
        const answer = await api<{ data: Json[]; total: number }>(`${base}/steps${q({ page, limit: PAGE })}`);
        for (const record of answer.data) upsert(record);
        if (page * PAGE >= answer.total || answer.data.length === 0) break;
      }
      mount(status, rows.size === 0 ? empty('No step has run yet.') : null);
    } catch (error) {
      mount(status, errorState(error));
    }
    renderAxis();
  };
  const element = h('section', { class: 'timeline-panel' }, h('h2', {}, 'Timeline'), h('div', { class: 'timeline-scroll' }, table), status);
  return {
    element,
    load,
    event(type, data) {
      const stepId = text(data.stepId);
      if (!stepId) return;
      if (type === 'step.started') upsert({ stepId, run: data.run, status: 'running', startedAt: data.at });
      // The stream's step events are small (no attempts): `load` again reads the records in full.
      else if (type === 'step.completed' || type === 'step.failed')
        upsert({ stepId, run: data.run, status: data.status ?? type.slice(5), completedAt: data.at });
      // A skip is recorded as run 0 of its step (activities/record-event-batch.ts): the same row `load` reads back.
      else if (type === 'step.skipped') upsert({ stepId, run: SKIPPED_RUN, status: 'skipped', completedAt: data.at });
      else if (type === 'wait.started') upsert({ stepId, status: 'waiting' });
      if (rows.size > 0) mount(status);
    },
    setSpan(start, end) {
      spanStart = start;
      spanEnd = end;
      renderAxis();
    },
    redraw() {
      renderAxis();
      for (const row of rows.values()) paint(row);
    },
    select(stepId) {
      for (const row of rows.values()) row.tr.classList.toggle('selected', row.stepId === stepId);
    },
  };
}
