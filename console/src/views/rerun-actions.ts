/**
 * The execution page's re-run part (issue 29): "re-run of" / "retry of" the execution this one runs again,
 * with the steps a retry reused, and the re-runs and retries of this one; "Re-run" (a new execution of the same revision and inputs) for a caller who
 * may execute the workflow, and "Retry from failed step" on a failed execution. Each opens the new execution.
 * The API checks every request; hiding the buttons is a courtesy.
 */
import { api, enc, q, type Json, type Page } from '../api';
import { h, link, mount, text } from '../dom';
import { navigate } from '../nav';
import { can } from '../session';
import { errorState } from '../states';

/** The part of the execution header that links re-runs and starts them; filled in once permissions are known. */
export function rerunActions(execution: Json, workflowNrn: string | undefined): HTMLElement {
  const id = text(execution.id);
  const origin = h('p', { class: 'meta rerun-origin' });
  const later = h('p', { class: 'meta rerun-later' });
  const buttons = h('div', { class: 'actions rerun-actions' });
  const problem = h('div', { class: 'problem' });
  const element = h('div', { class: 'rerun', 'data-rerun': id }, origin, later, buttons, problem);
  void showLater(later, id);

  if (typeof execution.rerunOf === 'string') {
    const of = execution.rerunOf;
    const kind = execution.rerunKind === 'retry' ? 'retry' : 're-run';
    mount(
      origin,
      h(
        'span',
        { 'data-rerun-of': of },
        `${kind === 'retry' ? 'Retry' : 'Re-run'} of `,
        link(`/console/executions/${enc(of)}`, h('code', {}, of)),
      ),
    );
    if (kind === 'retry') void showReused(origin, id, of);
  }

  const start = async (action: 'rerun' | 'retry', button: HTMLButtonElement) => {
    button.disabled = true;
    mount(problem);
    try {
      const started = await api<Json>(`/workflows/executions/${enc(id)}/${action}`, { method: 'POST' });
      navigate(`/console/executions/${enc(text(started.executionId))}`);
    } catch (error) {
      button.disabled = false;
      mount(problem, errorState(error));
    }
  };
  void can('workflow:execute', workflowNrn).then((allowed) => {
    if (!allowed) return;
    const rerun: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        'data-action': 'rerun',
        title: 'A new execution of the same revision with the same inputs',
        onclick: () => void start('rerun', rerun),
      },
      'Re-run',
    );
    const retry: HTMLButtonElement | null =
      execution.status === 'failed'
        ? h(
            'button',
            {
              type: 'button',
              class: 'primary',
              'data-action': 'retry',
              title: 'A new execution that reuses the steps that completed and starts at the failed one',
              onclick: () => void start('retry', retry!),
            },
            'Retry from failed step',
          )
        : null;
    mount(buttons, retry, rerun);
  });
  return element;
}

/** The steps a retry took over from the execution it retries (their records say `reusedFrom`). */
async function showReused(origin: HTMLElement, id: string, of: string): Promise<void> {
  try {
    const steps = await api<Page<Json>>(`/workflows/executions/${enc(id)}/steps?limit=200`);
    const reused = steps.data.filter((step) => step.reusedFrom === of).map((step) => text(step.stepId));
    if (reused.length === 0) return;
    origin.append(
      ' · ',
      h(
        'span',
        { 'data-reused-steps': reused.join(',') },
        `${reused.length} step${reused.length === 1 ? '' : 's'} reused, not run again: `,
        ...reused.flatMap((stepId, index) => [index > 0 ? ', ' : '', h('code', { class: 'reused-step' }, stepId)]),
      ),
    );
  } catch {
    // The link above stays; the list of reused steps is a detail.
  }
}

/** The newest re-runs and retries of this execution, linked. */
async function showLater(later: HTMLElement, id: string): Promise<void> {
  try {
    const runs = await api<Page<Json>>(`/workflows/executions${q({ rerunOf: id, limit: 5 })}`);
    if (runs.data.length === 0) return;
    mount(
      later,
      h(
        'span',
        { 'data-reruns': runs.data.map((run) => text(run.id)).join(',') },
        'Run again as ',
        ...runs.data.flatMap((run, index) => [
          index > 0 ? ', ' : '',
          link(`/console/executions/${enc(text(run.id))}`, h('code', {}, text(run.id))),
          ` (${run.rerunKind === 'retry' ? 'retry' : 're-run'}, ${text(run.status)})`,
        ]),
        runs.total > runs.data.length ? ` and ${runs.total - runs.data.length} more` : '',
      ),
    );
  } catch {
    // A detail: the page works without it.
  }
}
