/**
 * A workflow's queued runs (flow control, docs/definitions.md "Flow control"), per key: each run's
 * place in its key's queue, how long it has waited, when it is due (throttle, debounce), and a cancel
 * action. Read from `GET /workflows/executions?status=queued&workflowId=…` (newest first, paged by
 * cursor); places are counted oldest first within a key, as the API counts them.
 */
import { api, ApiError, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { empty, errorState, loading } from '../states';
import { duration } from './readable';

/** Pages read at most: the queue's per-key cap (docs/limits.md), 100 a page. */
const MAX_PAGES = 10;
const PAGE = 100;

type QueuePage = Page<Json> & { nextCursor?: string | null };

/** The section, filled once the queue is read; `mayCancel` shows the cancel buttons. */
export function queueSection(workflowId: string, mayCancel: boolean): HTMLElement {
  const body = h('div', { class: 'queue-body' }, loading('Reading the queue…'));
  const problem = h('div', { class: 'problem' });
  const section = h('section', { class: 'queue', 'aria-label': 'Queued runs' }, h('h2', {}, 'Queued runs'), problem, body);
  const refresh = async (): Promise<void> => {
    try {
      const { runs, more } = await readQueue(workflowId);
      mount(body, queueTable(runs, more, mayCancel ? cancel : undefined));
    } catch (error) {
      // Listing needs workflow:read on the whole organization (without it the API answers 404, hiding the organization, or 403):
      // a reader of this workflow alone is told so, not shown an error.
      const forbidden = error instanceof ApiError && (error.status === 403 || error.status === 404);
      mount(body, forbidden ? empty('Queued runs are listed to readers of the whole organization.') : errorState(error));
    }
  };
  const cancel = async (id: string): Promise<void> => {
    mount(problem);
    try {
      await api(`/workflows/executions/${enc(id)}/cancel`, { method: 'POST', body: { reason: 'cancelled from the console queue' } });
    } catch (error) {
      mount(problem, errorState(error));
    }
    await refresh();
  };
  void refresh();
  return section;
}

async function readQueue(workflowId: string): Promise<{ runs: Json[]; more: boolean }> {
  const runs: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const read = await api<QueuePage>(`/workflows/executions${q({ status: 'queued', workflowId, limit: PAGE, cursor })}`);
    runs.push(...read.data);
    if (!read.nextCursor) return { runs, more: false };
    cursor = read.nextCursor;
  }
  return { runs, more: true };
}

const keyOf = (run: Json): string => text((run.flowControl as Json | undefined)?.key ?? '');
const oldestFirst = (a: Json, b: Json): number =>
  text(a.createdAt).localeCompare(text(b.createdAt)) || (text(a.id) < text(b.id) ? -1 : text(a.id) > text(b.id) ? 1 : 0);

function queueTable(runs: Json[], more: boolean, cancel: ((id: string) => Promise<void>) | undefined): HTMLElement {
  if (runs.length === 0) return empty('No queued runs.');
  const byKey = new Map<string, Json[]>();
  for (const run of runs) byKey.set(keyOf(run), [...(byKey.get(keyOf(run)) ?? []), run]);
  const now = Date.now();
  const keys = [...byKey.keys()].sort();
  return h(
    'div',
    {},
    more ? h('p', { class: 'meta' }, `The ${runs.length} newest queued runs; older ones are not shown, so places may be higher.`) : null,
    ...keys.map((key) => {
      const queued = byKey.get(key)!.sort(oldestFirst);
      const kind = text((queued[0].flowControl as Json | undefined)?.kind ?? '');
      return h(
        'table',
        { class: 'queue-key', 'data-flow-key': key },
        h('caption', {}, h('code', {}, key), ` · ${kind} · ${queued.length} queued`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Place'),
            h('th', {}, 'Execution'),
            h('th', {}, 'Waiting'),
            h('th', {}, 'Due'),
            cancel ? h('th', {}, '') : null,
          ),
        ),
        h(
          'tbody',
          {},
          ...queued.map((run, i) => {
            const id = text(run.id);
            const notBefore = (run.flowControl as Json | undefined)?.notBefore;
            return h(
              'tr',
              { 'data-execution-id': id },
              h('td', { 'data-queue-position': i + 1 }, String(i + 1)),
              h('td', {}, link(`/console/executions/${enc(id)}`, id)),
              h('td', { title: formatTime(run.createdAt) }, duration(now - Date.parse(text(run.createdAt)))),
              h('td', {}, notBefore ? formatTime(notBefore) : 'when a slot frees'),
              cancel
                ? h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'aria-label': `Cancel queued execution ${id}`,
                        onclick: (event: Event) => {
                          (event.currentTarget as HTMLButtonElement).disabled = true;
                          void cancel(id);
                        },
                      },
                      'Cancel',
                    ),
                  )
                : null,
            );
          }),
        ),
      );
    }),
  );
}
