/** The log window: the newest entries first, then older windows on demand, as the API pages them. */
import { api, q, type Json } from '../api';
import { formatTime, h, mount, text } from '../dom';
import { empty, errorState, loading } from '../states';

export const LOG_WINDOW = 100;

/** `status` gives the execution's current status, so an empty log says why when the run failed. */
export function logWindow(base: string, status: () => string): { element: HTMLElement; reload: () => Promise<void> } {
  const rows = h('tbody', {});
  const state = h('div', { class: 'log-status' });
  const older = h('button', { type: 'button', 'data-action': 'older-logs', hidden: true }, 'Load older entries');
  const table = h(
    'table',
    { class: 'logs' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Step'), h('th', {}, 'Level'), h('th', {}, 'Message'))),
    rows,
  );
  let cursor: number | undefined;

  const render = (entry: Json) =>
    h(
      'tr',
      { class: `level-${text(entry.level)}`, 'data-log': text(entry.id) },
      h('td', {}, formatTime(entry.timestamp)),
      h('td', {}, text(entry.stepId)),
      h('td', {}, text(entry.level)),
      h('td', {}, text(entry.message)),
    );
  const load = async (fresh: boolean) => {
    mount(state, loading('Loading logs…'));
    try {
      const window = await api<{ data: Json[]; total: number; nextCursor?: number }>(
        `${base}/logs${q({ limit: LOG_WINDOW, cursor: fresh ? undefined : cursor })}`,
      );
      // A window is oldest-first: older windows go above what is shown.
      const fragment = window.data.map(render);
      if (fresh) rows.replaceChildren(...fragment);
      else rows.prepend(...fragment);
      cursor = window.nextCursor;
      older.hidden = cursor === undefined;
      mount(
        state,
        window.total === 0
          ? empty(emptyText(status()))
          : h('span', { class: 'meta' }, `${rows.children.length} of ${window.total} entries`),
      );
    } catch (error) {
      mount(state, errorState(error));
    }
  };
  older.addEventListener('click', () => void load(false));
  const element = h(
    'section',
    { class: 'log-window' },
    h('h2', {}, 'Logs ', h('button', { type: 'button', class: 'link', onclick: () => void load(true) }, 'Refresh')),
    older,
    table,
    state,
  );
  void load(true);
  return { element, reload: () => load(true) };
}

/** Why the log is empty, by the run's status. */
function emptyText(status: string): string {
  if (status === 'failed')
    return 'No log entries: the run failed before any step wrote one (see the error above and the failed step on the timeline).';
  if (status === 'cancelled' || status === 'terminated') return `No log entries: the run was ${status} before any step wrote one.`;
  if (status === 'completed') return 'No log entries: no step of this run writes any.';
  return 'No log entries yet.';
}
