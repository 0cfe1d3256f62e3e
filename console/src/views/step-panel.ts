/**
 * The step panel of an execution page: one run of one step (the latest, or the
 * run picked on the timeline) with its config as that run's call got it (the
 * engine records it resolved, every secret it read shown masked; a run recorded
 * without one shows the revision's config as written), inputs, outputs, items,
 * error, attempts, its other runs, and the log entries of that step only.
 */
import { api, enc, q, type Json } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { empty, errorState, loading } from '../states';
import { statusBadge } from './executions';
import { duration, keyValues, maskedJson, ms, readableError } from './readable';

export const STEP_LOG_LIMIT = 100;

export interface StepPanel {
  element: HTMLElement;
  show(stepId: string, run?: number): Promise<void>;
}

export function stepPanel(base: string, definition: Json | null, onSelect: (stepId: string) => void): StepPanel {
  const element = h(
    'aside',
    { class: 'step-panel' },
    empty('Select a step in the graph or on the timeline to see its config, inputs, outputs and logs.'),
  );
  const steps = (definition?.steps ?? {}) as Record<string, Json>;

  const show = async (stepId: string, run?: number) => {
    onSelect(stepId);
    mount(element, loading());
    try {
      const [step, logs] = await Promise.all([
        api<Json>(`${base}/steps/${enc(stepId)}${q({ limit: 200 })}`),
        api<{ data: Json[]; total: number }>(`${base}/logs${q({ stepId, limit: STEP_LOG_LIMIT })}`),
      ]);
      const runs = Array.isArray(step.runs) ? (step.runs as Json[]) : [];
      const record = (run !== undefined ? runs.find((r) => Number(r.run) === run) : undefined) ?? ((step.record ?? {}) as Json);
      mount(element, details(stepId, record, runs, Number(step.total ?? runs.length), logs, steps[stepId], show));
    } catch (error) {
      mount(element, h('h2', {}, stepId), errorState(error));
    }
  };
  return { element, show };
}

function details(
  stepId: string,
  record: Json,
  runs: Json[],
  totalRuns: number,
  logs: { data: Json[]; total: number },
  definition: Json | undefined,
  show: (stepId: string, run?: number) => Promise<void>,
): HTMLElement {
  const section = (title: string, body: HTMLElement | null, open = true) =>
    body ? h('details', { open, 'data-section': title.toLowerCase() }, h('summary', {}, title), body) : null;
  const started = ms(record.startedAt);
  const ended = ms(record.completedAt);
  const attempts = Array.isArray(record.attempts) ? (record.attempts as Json[]) : [];
  // Past the engine's cap on listed attempts (workflows/engine/runtime/attempts.ts), the rest are a count.
  const omitted = Number(record.attemptsOmitted) || 0;
  const recordedConfig = record.config !== undefined && record.config !== null;
  const config = recordedConfig ? record.config : definition?.config;
  const has = (value: unknown) => value !== undefined && value !== null;
  const outputs = record.outputs as Json | undefined;
  return h(
    'div',
    { 'data-step-panel': stepId, 'data-run': text(record.run) },
    h('h2', {}, stepId, ' ', statusBadge(text(record.status ?? 'unknown'))),
    h(
      'p',
      { class: 'meta' },
      [
        definition?.pluginType ? `${text(definition.type)} · ${text(definition.pluginType)}` : text(definition?.type),
        totalRuns > 1 ? `run ${text(record.run)} of ${totalRuns}` : '',
        record.startedAt ? `started ${formatTime(record.startedAt)}` : '',
        record.completedAt ? `finished ${formatTime(record.completedAt)} (${duration(ended - started)})` : '',
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    // A retry took this step's record over from the failed run instead of running it (POST …/retry).
    typeof record.reusedFrom === 'string'
      ? h(
          'p',
          { class: 'meta', 'data-reused-from': record.reusedFrom },
          'Reused, not run again: recorded by ',
          link(`/console/executions/${enc(record.reusedFrom)}`, record.reusedFrom),
        )
      : null,
    has(record.error) ? section('Error', readableError(record.error)) : null,
    has(config)
      ? section(
          'Config',
          h(
            'div',
            { 'data-config': recordedConfig ? 'resolved' : 'as-written' },
            h(
              'p',
              { class: 'meta' },
              recordedConfig
                ? 'As this run resolved it; a secret it used is masked.'
                : 'As the revision wrote it (this run recorded no resolved config).',
            ),
            maskedJson(config),
          ),
        )
      : null,
    has(record.inputs)
      ? section('Inputs', keyValues(record.inputs))
      : has(definition?.inputs)
        ? section(
            'Inputs',
            h(
              'div',
              { 'data-inputs': 'as-written' },
              h('p', { class: 'meta' }, 'As the revision declares them.'),
              maskedJson(definition?.inputs),
            ),
          )
        : null,
    outputs && Object.keys(outputs).length > 0 ? section('Outputs', keyValues(outputs)) : null,
    Array.isArray(record.items) && record.items.length > 1
      ? section(`Items (${record.items.length})`, maskedJson(record.items), false)
      : null,
    attempts.length > 0
      ? section(
          `Attempts (${attempts.length + omitted})`,
          h(
            'div',
            {},
            attemptsTable(attempts),
            omitted > 0 ? h('p', { class: 'meta' }, `${omitted} more attempts are counted, not listed.`) : null,
          ),
        )
      : null,
    runs.length > 1 ? section(`Runs (${totalRuns})`, runsList(stepId, runs, Number(record.run), show), false) : null,
    section(`Logs of this step (${logs.total})`, stepLogs(logs, record)),
  );
}

function attemptsTable(attempts: Json[]): HTMLElement {
  return h(
    'table',
    { class: 'attempts' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Attempt'), h('th', {}, 'Status'), h('th', {}, 'Took'), h('th', {}, 'Error'))),
    h(
      'tbody',
      {},
      ...attempts.map((attempt) =>
        h(
          'tr',
          { 'data-attempt': text(attempt.attempt), 'data-status': text(attempt.status) },
          h('td', {}, `#${text(attempt.attempt)}${attempt.itemIndex !== undefined ? ` (item ${text(attempt.itemIndex)})` : ''}`),
          h('td', {}, statusBadge(text(attempt.status))),
          h('td', {}, attempt.startedAt ? duration(ms(attempt.completedAt) - ms(attempt.startedAt)) : ''),
          h(
            'td',
            {},
            attempt.error
              ? readableError(attempt.error)
              : attempt.status === 'failed'
                ? h('span', { class: 'meta' }, 'retried by Temporal; its error is in the Temporal history')
                : '',
          ),
        ),
      ),
    ),
  );
}

function runsList(stepId: string, runs: Json[], current: number, show: (stepId: string, run?: number) => Promise<void>): HTMLElement {
  return h(
    'ul',
    { class: 'runs' },
    ...runs.map((run) =>
      h(
        'li',
        {},
        Number(run.run) === current
          ? h('strong', {}, `run ${text(run.run)}`)
          : h('button', { type: 'button', class: 'link', onclick: () => void show(stepId, Number(run.run)) }, `run ${text(run.run)}`),
        ' ',
        statusBadge(text(run.status)),
        run.startedAt ? ` ${formatTime(run.startedAt)}` : '',
      ),
    ),
  );
}

function stepLogs(logs: { data: Json[]; total: number }, record: Json): HTMLElement {
  if (logs.data.length === 0)
    return empty(record.status === 'failed' ? 'This step failed before writing a log entry.' : 'This step wrote no log entries.');
  return h(
    'table',
    { class: 'logs step-logs' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Level'), h('th', {}, 'Message'))),
    h(
      'tbody',
      {},
      ...logs.data.map((entry) =>
        h(
          'tr',
          { class: `level-${text(entry.level)}`, 'data-log': text(entry.id) },
          h('td', {}, formatTime(entry.timestamp)),
          h('td', {}, text(entry.level)),
          h('td', {}, text(entry.message)),
        ),
      ),
    ),
    logs.total > logs.data.length ? h('caption', {}, `The newest ${logs.data.length} of ${logs.total} entries.`) : null,
  );
}
