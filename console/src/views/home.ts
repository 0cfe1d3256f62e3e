/**
 * The console's home: the last 24 hours of executions by status, hour by hour (stacked
 * bars in SVG) with totals, the workflows failing most, runs waiting on signals, the
 * next scheduled runs, and what started in the last hour.
 */
import { api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, s, text } from '../dom';
import type { View } from '../nav';
import { empty, errorState, loading } from '../states';
import { durationOf, STATUSES, statusBadge } from './executions';
import { waitingOnYou } from './approvals';

interface Stats {
  from: string;
  to: string;
  totals: Record<string, number>;
  buckets: Array<{ start: string; counts: Record<string, number> }>;
  failingWorkflows: Array<{ workflowId: string; workflowKey?: string; failed: number; lastFailedAt: string }>;
}

const WAITING_SHOWN = 10;
const SCHEDULED_SHOWN = 8;

export const homeView: View = async (main) => {
  const overview = h('section', { class: 'home-overview' }, loading());
  const failing = h('section', { class: 'home-failing' }, loading());
  const waiting = h('section', { class: 'home-waiting' }, loading());
  const scheduled = h('section', { class: 'home-scheduled' }, loading());
  const recent = h('section', { class: 'home-recent' }, loading());
  const onYou = h('p', { class: 'home-on-you' });
  void waitingOnYou().then((n) => {
    if (n !== undefined && n > 0) mount(onYou, link('/console/approvals', `Waiting on you: ${n}`));
  });
  mount(
    main,
    h('h1', {}, 'Home'),
    onYou,
    h('h2', {}, 'Executions in the last 24 hours'),
    overview,
    h(
      'div',
      { class: 'home-grid' },
      h('div', {}, h('h2', {}, 'Failing workflows (24 h)'), failing),
      h('div', {}, h('h2', {}, 'Waiting on signals'), waiting),
      h('div', {}, h('h2', {}, 'Next scheduled runs'), scheduled),
      h('div', {}, h('h2', {}, 'Started in the last hour'), recent),
    ),
  );
  // Each part fills in on its own: one failing read leaves the others standing.
  const names = workflowNames();
  await Promise.all([
    fill(overview, async () => statsParts(await api<Stats>(`/workflows/executions/stats${q({ bucket: 'hour' })}`), failing, names)),
    fill(waiting, () => waitingRuns()),
    fill(scheduled, () => nextRuns(names)),
    fill(recent, () => lastHour()),
  ]);
};

async function fill(slot: HTMLElement, build: () => Promise<Node | Node[]>): Promise<void> {
  try {
    const built = await build();
    mount(slot, ...(Array.isArray(built) ? built : [built]));
  } catch (error) {
    mount(slot, errorState(error));
  }
}

/** Workflow names by id (the first 200 workflows), for lists that carry only ids. */
function workflowNames(): Promise<Map<string, string>> {
  return api<Page<Json>>(`/workflows/definitions${q({ limit: 200 })}`).then(
    (page) => new Map(page.data.map((wf) => [text(wf.id), text(wf.name ?? wf.key ?? wf.id)])),
    () => new Map<string, string>(),
  );
}

async function statsParts(stats: Stats, failingSlot: HTMLElement, names: Promise<Map<string, string>>): Promise<Node[]> {
  const known = await names;
  mount(
    failingSlot,
    stats.failingWorkflows.length === 0
      ? empty('No failed executions in the last 24 hours.')
      : h(
          'table',
          { class: 'failing' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Workflow'), h('th', {}, 'Failed'), h('th', {}, 'Last failure'))),
          h(
            'tbody',
            {},
            ...stats.failingWorkflows.map((wf) =>
              h(
                'tr',
                { 'data-workflow': wf.workflowId },
                h('td', {}, link(`/console/workflows/${enc(wf.workflowId)}`, known.get(wf.workflowId) ?? wf.workflowKey ?? wf.workflowId)),
                h(
                  'td',
                  {},
                  link(`/console/executions${q({ workflowId: wf.workflowId, status: 'failed', range: '24h' })}`, `${wf.failed} failed`),
                ),
                h('td', {}, formatTime(wf.lastFailedAt)),
              ),
            ),
          ),
        ),
  );
  return [
    h(
      'ul',
      { class: 'totals' },
      ...STATUSES.map((status) =>
        h(
          'li',
          { 'data-total': status, 'data-count': stats.totals[status] ?? 0 },
          link(
            `/console/executions${q({ status, range: '24h' })}`,
            h('span', { class: 'count' }, String(stats.totals[status] ?? 0)),
            ' ',
            statusBadge(status),
          ),
        ),
      ),
    ),
    chart(stats),
  ];
}

/** Stacked bars, one per hour, a segment per status (the legend is the totals above). */
function chart(stats: Stats): SVGSVGElement {
  const width = 1000;
  const height = 180;
  const top = 10;
  const bottom = 24;
  const left = 36;
  const slot = (width - left) / Math.max(1, stats.buckets.length);
  const highest = Math.max(1, ...stats.buckets.map((b) => Object.values(b.counts).reduce((sum, n) => sum + n, 0)));
  const scale = (height - top - bottom) / highest;
  const bars = stats.buckets.map((bucket, i) => {
    let y = height - bottom;
    const total = Object.values(bucket.counts).reduce((sum, n) => sum + n, 0);
    const segments = STATUSES.filter((status) => (bucket.counts[status] ?? 0) > 0).map((status) => {
      const n = bucket.counts[status];
      y -= n * scale;
      return s('rect', { class: `seg status-${status}`, x: left + i * slot + 2, y, width: Math.max(1, slot - 4), height: n * scale });
    });
    const hour = new Date(bucket.start);
    return s(
      'g',
      { class: 'bar', 'data-start': bucket.start, 'data-count': total },
      s('title', {}, `${hour.toLocaleString()}: ${total} execution${total === 1 ? '' : 's'}`),
      ...segments,
      i % 3 === 0
        ? s(
            'text',
            { class: 'tick', x: left + i * slot + slot / 2, y: height - 8, 'text-anchor': 'middle' },
            `${String(hour.getHours()).padStart(2, '0')}:00`,
          )
        : null,
    );
  });
  return s(
    'svg',
    { class: 'stats-chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'Executions per hour by status' },
    s('line', { class: 'axis', x1: left, y1: height - bottom, x2: width, y2: height - bottom }),
    s('text', { class: 'tick', x: left - 6, y: top + 8, 'text-anchor': 'end' }, String(highest)),
    s('text', { class: 'tick', x: left - 6, y: height - bottom, 'text-anchor': 'end' }, '0'),
    ...bars,
  );
}

async function waitingRuns(): Promise<Node> {
  const page = await api<Page<Json>>(`/workflows/executions${q({ status: 'waiting', limit: WAITING_SHOWN })}`);
  if (page.data.length === 0) return empty('No execution waits on a signal.');
  // Their pending signals: one read each, for the few shown.
  const signals = await Promise.all(
    page.data.map((run) =>
      api<{ data: Array<{ signalNames: string[] }> }>(`/workflows/executions/${enc(text(run.id))}/pending-signals`).then(
        (body) => body.data.flatMap((wait) => wait.signalNames),
        (): string[] => [],
      ),
    ),
  );
  return h(
    'table',
    { class: 'waiting' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Execution'), h('th', {}, 'Workflow'), h('th', {}, 'Waits on'), h('th', {}, 'Waiting for'))),
    h(
      'tbody',
      {},
      ...page.data.map((run, i) =>
        h(
          'tr',
          { 'data-execution': text(run.id) },
          h('td', {}, link(`/console/executions/${enc(text(run.id))}`, h('code', {}, text(run.id)))),
          h('td', {}, text(run.workflowKey ?? run.workflowId)),
          h('td', {}, ...signals[i].flatMap((name, n) => [n > 0 ? ', ' : '', h('code', { 'data-signal': name }, name)])),
          h('td', {}, durationOf(run)),
        ),
      ),
    ),
    page.total > page.data.length
      ? h(
          'p',
          {},
          link(
            `/console/executions${q({ status: 'waiting' })}`,
            `All ${page.total}${(page as { totalCapped?: boolean }).totalCapped ? '+' : ''} waiting`,
          ),
        )
      : null,
  );
}

async function nextRuns(names: Promise<Map<string, string>>): Promise<Node> {
  const [triggers, known] = await Promise.all([
    api<{ data: Json[] }>(`/workflows/triggers${q({ status: 'live', includeNextRun: 'true' })}`),
    names,
  ]);
  const upcoming = triggers.data
    .filter((t) => typeof t.nextRunAt === 'string')
    .sort((a, b) => text(a.nextRunAt).localeCompare(text(b.nextRunAt)))
    .slice(0, SCHEDULED_SHOWN);
  if (upcoming.length === 0) return empty('No active schedule.');
  return h(
    'table',
    { class: 'scheduled' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Next run'), h('th', {}, 'Workflow'), h('th', {}, 'Schedule'))),
    h(
      'tbody',
      {},
      ...upcoming.map((t) =>
        h(
          'tr',
          { 'data-trigger': `${text(t.workflowId)}/${text(t.aliasName)}/${text(t.triggerId)}` },
          h('td', {}, formatTime(t.nextRunAt)),
          h(
            'td',
            {},
            link(`/console/workflows/${enc(text(t.workflowId))}`, known.get(text(t.workflowId)) ?? text(t.workflowId)),
            ` · ${text(t.aliasName)}`,
          ),
          h('td', {}, h('code', {}, text((t.runtimeMetadata as Json | undefined)?.schedule))),
        ),
      ),
    ),
    h('p', {}, link('/console/triggers', 'All triggers')),
  );
}

async function lastHour(): Promise<Node> {
  const page = await api<Page<Json>>(`/workflows/executions${q({ from: new Date(Date.now() - 3_600_000).toISOString(), limit: 10 })}`);
  if (page.data.length === 0) return empty('Nothing started in the last hour.');
  return h(
    'table',
    { class: 'recent' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Execution'), h('th', {}, 'Workflow'), h('th', {}, 'Status'), h('th', {}, 'Started'))),
    h(
      'tbody',
      {},
      ...page.data.map((run) =>
        h(
          'tr',
          { 'data-execution': text(run.id) },
          h('td', {}, link(`/console/executions/${enc(text(run.id))}`, h('code', {}, text(run.id)))),
          h('td', {}, text(run.workflowKey ?? run.workflowId)),
          h('td', {}, statusBadge(text(run.status))),
          h('td', {}, formatTime(run.createdAt)),
        ),
      ),
    ),
    h('p', {}, link(`/console/executions${q({ range: '1h' })}`, 'All of the last hour')),
  );
}
