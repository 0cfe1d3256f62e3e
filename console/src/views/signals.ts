/**
 * Pending signals of an execution, and, while it runs, a form that delivers one (showing the 409 when nothing
 * waits on that name). An ended run shows no form: nothing can wait on a signal any more.
 */
import { api, enc, type Json } from '../api';
import { formatTime, h, mount, text } from '../dom';
import { empty, errorState, loading } from '../states';

export function signalsPanel(
  base: string,
  maySignal: boolean,
  running: boolean,
): { element: HTMLElement; reload: () => Promise<void>; ended: () => void } {
  const list = h('div', {}, loading());
  const result = h('div', { class: 'signal-result' });
  const name = h('input', { type: 'text', name: 'signal', placeholder: 'Signal name', 'aria-label': 'Signal name', required: true });
  const payload = h('textarea', { name: 'payload', rows: 3, 'aria-label': 'Payload (JSON object)' }, '{}');
  const form = h(
    'form',
    { class: 'signal-form' },
    name,
    payload,
    h('button', { type: 'submit', 'data-action': 'deliver-signal' }, 'Deliver signal'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void deliver();
  });

  const deliver = async () => {
    mount(result);
    let body: unknown;
    try {
      body = JSON.parse(payload.value || '{}');
    } catch {
      return mount(result, h('p', { class: 'error-text' }, 'The payload is not valid JSON.'));
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return mount(result, h('p', { class: 'error-text' }, 'The payload must be a JSON object.'));
    try {
      const answer = await api<Json>(`${base}/signals/${enc(name.value.trim())}`, { method: 'POST', body });
      mount(result, h('p', { class: 'ok', role: 'status' }, `Delivered (${text(answer.signalId)}).`));
      await reload();
    } catch (error) {
      mount(result, errorState(error));
    }
  };

  const reload = async () => {
    try {
      const waits = (await api<{ data: Json[] }>(`${base}/pending-signals`)).data;
      if (waits.length === 0)
        return mount(list, empty(running ? 'Nothing waits for a signal.' : 'The run has ended: nothing waits for a signal.'));
      mount(
        list,
        h(
          'ul',
          { class: 'waits' },
          ...waits.map((wait) =>
            h(
              'li',
              { 'data-wait': text(wait.stepId) },
              `${text(wait.stepId)} waits for `,
              ...(wait.signalNames as string[]).map((signal) =>
                maySignal
                  ? h(
                      'button',
                      { type: 'button', class: 'link', 'data-signal': signal, onclick: () => ((name.value = signal), name.focus()) },
                      signal,
                    )
                  : h('code', {}, signal),
              ),
              ` since ${formatTime(wait.since)}${wait.timeoutAt ? `, until ${formatTime(wait.timeoutAt)}` : ''}`,
            ),
          ),
        ),
      );
      if (!name.value && waits[0]) name.value = text((waits[0].signalNames as string[])[0] ?? '');
    } catch (error) {
      mount(list, errorState(error));
    }
  };
  const ended = () => {
    running = false;
    form.remove();
  };
  void reload();
  return {
    element: h('section', { class: 'signals' }, h('h2', {}, 'Pending signals'), list, maySignal && running ? form : null, result),
    reload,
    ended,
  };
}
