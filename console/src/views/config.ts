/**
 * Config entries of a place (a folder path or one workflow): variables with
 * their values, secrets write-only (set or rotate a value; it is never shown).
 */
import { api, enc, q, type Json } from '../api';
import { formatTime, h, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { can } from '../session';
import { empty, errorState, loading } from '../states';

export const configView: View = async (main, _params, query) => {
  const workflow = query.get('workflow') ?? '';
  const path = workflow ? '' : (query.get('path') ?? '/');
  const placeInput = h('input', {
    type: 'text',
    name: 'path',
    value: path,
    placeholder: 'Folder path, e.g. /team',
    'aria-label': 'Folder path',
  });
  const placeForm = h('form', { class: 'filters' }, placeInput, h('button', { type: 'submit' }, 'Show folder'));
  placeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/config${q({ path: placeInput.value.trim() || '/' })}`);
  });
  const list = h('section', {}, loading());
  const problem = h('div', { class: 'problem' });
  mount(
    main,
    h('h1', {}, 'Config entries'),
    h('p', { class: 'meta' }, workflow ? `Workflow ${workflow}` : `Folder ${path}`),
    placeForm,
    problem,
    list,
  );

  const wf = workflow ? await api<Json>(`/workflows/definitions/${enc(workflow)}`) : undefined;
  const mayWrite = await can('config:write', typeof wf?.nrn === 'string' ? wf.nrn : undefined);
  const place = workflow ? { workflow } : { path };
  const reload = () => navigate(location.pathname + location.search, true);
  const write = async (request: Promise<unknown>) => {
    mount(problem);
    try {
      await request;
      reload();
    } catch (error) {
      mount(problem, errorState(error));
    }
  };

  let entries: Json[];
  try {
    entries = (await api<{ data: Json[] }>(`/workflows/config${q(place)}`)).data;
  } catch (error) {
    return mount(list, errorState(error));
  }
  const rows = entries.map((entry) => {
    const rotate = h('input', {
      type: entry.secret ? 'password' : 'text',
      'aria-label': `New value of ${text(entry.name)}`,
      autocomplete: 'off',
    });
    return h(
      'tr',
      { 'data-entry': text(entry.name) },
      h('td', {}, h('code', {}, text(entry.name))),
      h('td', {}, entry.secret ? 'secret' : 'variable'),
      h('td', {}, entry.secret ? h('span', { class: 'meta' }, 'write-only') : h('code', {}, text(entry.value ?? ''))),
      h('td', {}, formatTime(entry.updatedAt)),
      h(
        'td',
        {},
        mayWrite
          ? h(
              'form',
              {
                class: 'inline',
                onsubmit: (event: Event) => {
                  event.preventDefault();
                  void write(api(`/workflows/config/${enc(text(entry.id))}`, { method: 'PATCH', body: { value: rotate.value } }));
                },
              },
              rotate,
              h('button', { type: 'submit' }, entry.secret ? 'Rotate' : 'Update'),
            )
          : null,
      ),
    );
  });
  const name = h('input', { type: 'text', name: 'name', placeholder: 'NAME', required: true, 'aria-label': 'Name' });
  const value = h('input', { type: 'password', name: 'value', placeholder: 'value', 'aria-label': 'Value', autocomplete: 'off' });
  const secret = h('input', { type: 'checkbox', name: 'secret', checked: true });
  const addForm = h(
    'form',
    { class: 'filters' },
    name,
    value,
    h('label', {}, secret, ' secret'),
    h('button', { type: 'submit', 'data-action': 'set-config' }, 'Set'),
  );
  addForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void write(
      api('/workflows/config', { method: 'POST', body: { ...place, name: name.value.trim(), value: value.value, secret: secret.checked } }),
    );
  });
  mount(
    list,
    entries.length === 0
      ? empty('No entries at this place.')
      : h(
          'table',
          { class: 'config' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Kind'), h('th', {}, 'Value'), h('th', {}, 'Updated'), h('th', {}, '')),
          ),
          h('tbody', {}, ...rows),
        ),
    mayWrite ? h('h2', {}, 'Set an entry') : null,
    mayWrite ? addForm : null,
  );
};
