/**
 * One execution: its facts (duration, trigger, revision, who started it,
 * inputs, outputs, error), its graph coloured by step status and its timeline of
 * step runs, both kept current from the execution's event stream (SSE,
 * authenticated by the session cookie), a step panel, the log window paged
 * backwards, pending signals with a delivery form while it runs, cancel and
 * terminate, and a link to the run in the Temporal UI.
 */
import { api, enc, q, type Json } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { graphOf } from '../graph/model';
import { graphView, type GraphView } from '../graph/view';
import type { View } from '../nav';
import { can } from '../session';
import { errorState, loading } from '../states';
import { executionFacts } from './execution-facts';
import { statusBadge } from './executions';
import { logWindow } from './logs';
import { ms } from './readable';
import { rerunActions } from './rerun-actions';
import { signalsPanel } from './signals';
import { stepPanel } from './step-panel';
import { timeline } from './timeline';

const STEP_EVENT_STATUS: Record<string, string> = {
  'step.started': 'running',
  'step.completed': 'completed',
  'step.failed': 'failed',
  'step.skipped': 'skipped',
  'wait.started': 'waiting',
};
const FINISHED = new Set(['completed', 'failed', 'cancelled', 'terminated']);

export const executionView: View = async (main, [id]) => {
  mount(main, loading());
  const ref = enc(id);
  const base = `/workflows/executions/${ref}`;
  let execution = await api<Json>(base);
  const workflowRef = enc(text(execution.workflowId));
  const [workflow, revision, state] = await Promise.all([
    api<Json>(`/workflows/definitions/${workflowRef}`).catch((): Json => ({})),
    api<Json>(`/workflows/definitions/${workflowRef}/revisions/${Number(execution.revision)}`),
    api<Json>(`${base}/state`).catch((): Json => ({ steps: {} })),
  ]);
  const nrn = typeof workflow.nrn === 'string' ? workflow.nrn : undefined;
  const [mayCancel, maySignal] = await Promise.all([can('execution:cancel', nrn), can('execution:signal', nrn)]);

  const header = h('div', { class: 'execution-header' });
  const problem = h('div', { class: 'problem' });
  // A run that makes no progress says so (the API's `health`, recorded by its open-runs sweep), re-read while live.
  const healthSlot = h('div', { class: 'run-health' });
  const renderHealth = (read: Json) => mount(healthSlot, healthNotice(read));
  const finishedAtStart = FINISHED.has(text(execution.status));
  const facts = executionFacts();
  const signals = signalsPanel(base, maySignal, !finishedAtStart);
  const logs = logWindow(base, () => text(execution.status));
  const panel = stepPanel(base, (revision.definition as Json | null) ?? null, (stepId) => {
    graph.select(stepId);
    steps.select(stepId);
  });
  const graph: GraphView = graphView(graphOf(revision.definition as Json | null), { onSelect: (stepId) => void panel.show(stepId) });
  const steps = timeline(base, (stepId, run) => void panel.show(stepId, run));
  for (const [stepId, record] of Object.entries((state.steps ?? {}) as Record<string, Json>)) {
    if (typeof record.status === 'string') graph.setStatus(stepId, record.status);
  }

  const renderHeader = () => {
    const temporal = execution.temporal as Json | undefined;
    const finished = FINISHED.has(text(execution.status));
    mount(
      header,
      h(
        'h1',
        {},
        'Execution ',
        h('code', {}, text(execution.id)),
        ' ',
        h('span', { id: 'execution-status' }, statusBadge(text(execution.status))),
      ),
      h(
        'p',
        { class: 'meta' },
        'Workflow ',
        link(
          `/console/workflows/${workflowRef}${q({ revision: Number(execution.revision) })}`,
          text(workflow.name ?? execution.workflowKey ?? execution.workflowId),
        ),
        ` · revision ${Number(execution.revision)}${execution.alias ? ` (alias ${text(execution.alias)})` : ''} · started ${formatTime(execution.createdAt)}`,
        execution.completedAt ? ` · finished ${formatTime(execution.completedAt)}` : '',
        typeof temporal?.uiUrl === 'string'
          ? h('span', {}, ' · ', h('a', { href: temporal.uiUrl, target: '_blank', rel: 'noopener noreferrer' }, 'Open in Temporal UI'))
          : temporal?.historyAvailable === false
            ? h('span', { id: 'temporal-history-gone' }, ` · ${text(temporal.reason ?? 'Temporal no longer keeps this run')}`)
            : null,
      ),
      rerunActions(execution, nrn),
      !finished && mayCancel
        ? h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', 'data-action': 'cancel', onclick: () => void stop('cancel') }, 'Cancel'),
            h(
              'button',
              { type: 'button', class: 'danger', 'data-action': 'terminate', onclick: () => void stop('terminate') },
              'Terminate',
            ),
          )
        : null,
    );
  };
  const refresh = async () => {
    try {
      execution = await api<Json>(base);
      renderHeader();
      renderHealth(execution);
      facts.render(execution);
      steps.setSpan(ms(execution.createdAt), FINISHED.has(text(execution.status)) ? ms(execution.completedAt) : undefined);
      steps.redraw();
    } catch (error) {
      mount(problem, errorState(error));
    }
  };
  const stop = async (action: 'cancel' | 'terminate') => {
    if (!window.confirm(`${action === 'cancel' ? 'Cancel' : 'Terminate'} this execution?`)) return;
    mount(problem);
    try {
      await api(`${base}/${action}`, { method: 'POST', body: { reason: `${action} from the console` } });
      await refresh();
    } catch (error) {
      mount(problem, errorState(error));
    }
  };

  renderHeader();
  renderHealth(execution);
  facts.render(execution);
  steps.setSpan(ms(execution.createdAt), finishedAtStart ? ms(execution.completedAt) : undefined);
  await steps.load();
  mount(
    main,
    header,
    healthSlot,
    problem,
    facts.element,
    h('div', { class: 'execution-body' }, h('section', { class: 'graph-slot' }, graph.element), panel.element),
    steps.element,
    h('div', { class: 'columns' }, signals.element, logs.element),
  );

  // Live: the stream replays every event from the start, so nothing between the reads above and now is missed.
  if (finishedAtStart) return;
  const stream = new EventSource(`${base}/events`);
  const live = h('span', { class: 'live', role: 'status' }, '● live');
  header.querySelector('h1')?.append(' ', live);
  // The browser reconnects by itself (resuming after the last event); it gives up only on a refusal (such as 429).
  stream.addEventListener('error', () => {
    if (stream.readyState === EventSource.CLOSED) live.textContent = 'live updates stopped: reload the page to resume';
  });
  const onStep = (event: MessageEvent<string>) => {
    const data = JSON.parse(event.data) as Json;
    const status = typeof data.status === 'string' && event.type !== 'step.started' ? data.status : STEP_EVENT_STATUS[event.type];
    if (typeof data.stepId === 'string' && status) graph.setStatus(data.stepId, status);
    steps.event(event.type, data);
    if (event.type.startsWith('wait.')) void signals.reload();
  };
  // The duration and the open bars grow with time while the run is live.
  let ticks = 0;
  const ticker = window.setInterval(() => {
    facts.tick();
    steps.redraw();
    if (++ticks % HEALTH_REREAD_SECONDS === 0) void api<Json>(base).then(renderHealth, () => undefined);
  }, 1000);
  for (const type of Object.keys(STEP_EVENT_STATUS).concat('wait.ended')) stream.addEventListener(type, onStep);
  const onEnd = () => {
    stream.close();
    window.clearInterval(ticker);
    live.remove();
    signals.ended();
    void refresh().then(() => Promise.all([logs.reload(), steps.load()]));
    void signals.reload();
  };
  for (const type of ['execution.completed', 'execution.failed', 'execution.cancelled', 'execution.terminated'])
    stream.addEventListener(type, onEnd);
  return () => {
    stream.close();
    window.clearInterval(ticker);
  };
};

/** How often a live page re-reads the execution for its health (the sweep looks every 15 to 30 s). */
const HEALTH_REREAD_SECONDS = 15;

/** The notice of a run whose workflow task keeps failing (nothing while it is well). */
function healthNotice(execution: Json): HTMLElement | null {
  const health = execution.health as Json | undefined;
  if (!health || health.workflowTaskFailing !== true) return null;
  return h(
    'div',
    { class: 'problem', role: 'alert', 'data-health': 'workflow-task-failing' },
    h('strong', {}, 'This run makes no progress. '),
    `Its workflow task has failed ${Number(health.attempts)} times since ${formatTime(health.since)} (Temporal retries it): `,
    h('code', {}, text(health.message)),
    health.cause ? ` (${text(health.cause)})` : '',
    '. Terminate it, or fix the cause and redeploy the worker.',
  );
}
