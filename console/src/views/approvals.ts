/**
 * "Waiting on you" (issue 42): the waits the signed-in user may answer (GET /workflows/approvals), and the page
 * that answers one: the run's context (its inputs, the step's rendered description, the steps so far), a form
 * rendered from the wait's schema (../forms/schema-form-view.ts, as specifications use it) and Approve / Reject
 * for a boolean `approved`. An answer that arrives after the run moved on says so.
 */
import { ApiError, api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, json, link, mount, text } from '../dom';
import { schemaForm } from '../forms/schema-form-view';
import { issuesUnder, isObject, type Schema } from '../forms/schema-form';
import type { View } from '../nav';
import { empty, errorState, loading } from '../states';

const answerPage = (wait: Json) => `/console/approvals/${enc(text(wait.executionId))}/${enc(text(wait.waitId))}`;

/** How many waits are on the user now (the navigation's count); undefined when the API cannot say. */
export async function waitingOnYou(): Promise<number | undefined> {
  try {
    return (await api<Page<Json>>(`/workflows/approvals${q({ limit: 1 })}`)).total;
  } catch {
    return undefined;
  }
}

export const approvalsView: View = async (main) => {
  mount(main, h('h1', {}, 'Waiting on you'), loading());
  const waits = await api<Page<Json>>(`/workflows/approvals${q({ limit: 100 })}`);
  if (waits.data.length === 0) return mount(main, h('h1', {}, 'Waiting on you'), empty('Nothing waits on you.'));
  mount(
    main,
    h('h1', {}, 'Waiting on you'),
    h(
      'ul',
      { class: 'approvals' },
      ...waits.data.map((wait) =>
        h(
          'li',
          { 'data-approval': text(wait.executionId) },
          link(answerPage(wait), text(wait.title ?? `${text(wait.stepId)} waits for an answer`)),
          ` · ${text((wait.workflow as Json).name ?? (wait.workflow as Json).id)} · waiting since ${formatTime(wait.since)}`,
          Number(wait.required) > 1
            ? ` · ${(wait.answers as Json[]).filter((a) => a.approved).length} of ${text(wait.required)} approvals`
            : '',
        ),
      ),
    ),
  );
};

export const answerView: View = async (main, [executionId, waitId]) => {
  mount(main, h('h1', {}, 'Answer'), loading());
  const listed = await api<Page<Json>>(`/workflows/approvals${q({ executionId })}`);
  const wait = listed.data.find((w) => w.waitId === waitId);
  const runLink = link(`/console/executions/${enc(executionId)}`, 'the run');
  if (!wait)
    return mount(
      main,
      h('h1', {}, 'Answer'),
      h(
        'p',
        { class: 'state empty', 'data-answer': 'gone' },
        'Nothing here waits on you any more: you answered already, or the run has moved on. See ',
        runLink,
        '.',
      ),
    );
  const context = h('section', { class: 'answer-context' }, loading());
  const result = h('div', { class: 'answer-result', 'aria-live': 'polite' });
  const schema: Schema = isObject(wait.form) ? wait.form : { type: 'object' };
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
  // A boolean `approved` becomes the two buttons; the rest of the form stays fields.
  const decides = isObject(properties.approved) && properties.approved.type === 'boolean';
  const fieldsSchema: Schema = decides
    ? {
        ...schema,
        properties: Object.fromEntries(Object.entries(properties).filter(([key]) => key !== 'approved')),
        required: Array.isArray(schema.required) ? (schema.required as string[]).filter((key) => key !== 'approved') : undefined,
      }
    : schema;
  const form = schemaForm(fieldsSchema, {}, { id: 'answer' });
  const send = async (approved?: boolean) => {
    mount(result);
    const value = form.value();
    const body = { ...(isObject(value) ? value : {}), ...(approved === undefined ? {} : { approved }) };
    try {
      const answer = await api<Json>(`/workflows/executions/${enc(executionId)}/signals/${enc(text(wait.signalName))}`, {
        method: 'POST',
        body,
      });
      buttons.remove();
      mount(
        result,
        h(
          'p',
          { class: 'ok', role: 'status', 'data-answer': answer.released === false ? 'counted' : 'released' },
          answer.released === false
            ? `Your answer is recorded: ${text(answer.approvals)} of ${text(answer.required)} approvals; the run waits for more.`
            : 'Your answer is recorded: the run goes on.',
        ),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 422 && Array.isArray(error.body?.errors))
        form.show(issuesUnder('/body', error.body.errors as Array<{ path?: string; message?: string }>));
      // Not waiting any more (409), or no longer an answerable wait to this user (the route then guards the run as a
      // plain signal: 403/404 for an approver by a narrower role): the inbox says whether the wait is still there.
      const gone =
        (error instanceof ApiError &&
          error.status === 409 &&
          typeof error.body?.type === 'string' &&
          error.body.type.endsWith('/signal-not-waiting')) ||
        (error instanceof ApiError && error.status !== 422 && !(await stillWaiting(executionId, waitId)));
      if (gone)
        return mount(
          result,
          h('p', { class: 'error-text', 'data-answer': 'moved-on' }, 'The run has moved on: your answer was not recorded.'),
        );
      mount(result, errorState(error));
    }
  };
  const buttons = h(
    'div',
    { class: 'answer-buttons' },
    ...(decides
      ? [
          h('button', { type: 'button', 'data-action': 'approve', onclick: () => void send(true) }, 'Approve'),
          h('button', { type: 'button', class: 'danger', 'data-action': 'reject', onclick: () => void send(false) }, 'Reject'),
        ]
      : [h('button', { type: 'button', 'data-action': 'answer', onclick: () => void send() }, 'Send answer')]),
  );
  const approvals = (wait.answers as Json[]).filter((a) => a.approved).length;
  mount(
    main,
    h('h1', {}, text(wait.title ?? `${text(wait.stepId)} waits for an answer`)),
    wait.description ? h('p', { class: 'answer-description' }, text(wait.description)) : null,
    h(
      'p',
      { class: 'muted' },
      `${text((wait.workflow as Json).name ?? (wait.workflow as Json).id)} · step ${text(wait.stepId)} · waiting since ${formatTime(wait.since)}`,
      Number(wait.required) > 1 ? ` · ${approvals} of ${text(wait.required)} approvals` : '',
      wait.excludeStarter ? ' · four eyes: not the person who started it' : '',
      ' · ',
      runLink,
    ),
    context,
    h('section', { class: 'answer-form' }, h('h2', {}, 'Your answer'), form.element, buttons, result),
  );
  void runContext(executionId, wait.inputs).then((node) => mount(context, node));
};

/** Whether the wait is still one the user may answer. */
async function stillWaiting(executionId: string, waitId: string): Promise<boolean> {
  try {
    return (await api<Page<Json>>(`/workflows/approvals${q({ executionId })}`)).data.some((w) => w.waitId === waitId);
  } catch {
    return true;
  }
}

/** The run's inputs (from the inbox), and its steps so far when the user may read the run (an approver by a narrower role may not). */
async function runContext(executionId: string, inputs: unknown): Promise<HTMLElement> {
  const inputsShown = [h('h2', {}, 'Inputs'), h('pre', { class: 'answer-inputs' }, json(inputs ?? {}))];
  try {
    const [run, steps] = await Promise.all([
      api<Json>(`/workflows/executions/${enc(executionId)}`),
      api<{ data: Json[] }>(`/workflows/executions/${enc(executionId)}/steps`),
    ]);
    return h(
      'div',
      {},
      ...inputsShown,
      h('p', { class: 'muted' }, `Run ${text(run.status)}, started ${formatTime(run.startedAt ?? run.createdAt)}`),
      h('h2', {}, 'So far'),
      h('ol', { class: 'answer-steps' }, ...steps.data.map((step) => h('li', {}, `${text(step.stepId)}: ${text(step.status)}`))),
    );
  } catch {
    return h('div', {}, ...inputsShown, h('p', { class: 'muted' }, "You may answer, but you cannot read the rest of this run's record."));
  }
}
