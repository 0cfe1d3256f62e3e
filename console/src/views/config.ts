/**
 * Config entries of a place (a folder path or one workflow): variables with
 * their values, secrets write-only (set or rotate a value; it is never shown).
 * A folder also shows its sub-folders with their entry counts and, below its own
 * entries, the entries of every folder beneath it (`descendants=true`), so
 * entries kept in sub-folders are found from `/`.
 */
import { api, enc, q, type Json } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { can } from '../session';
import { empty, errorState, loading } from '../states';

export const configView: View = async (main, _params, query) => {
  const workflow = query.get('workflow') ?? '';
  // As the API normalizes it (`/team//x/` is `/team/x`), so entries compare by folder.
  const path = workflow ? '' : `/${(query.get('path') ?? '/').split('/').filter(Boolean).join('/')}`;
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
  const folders = h('nav', { class: 'folders config-folders', 'aria-label': 'Folders' });
  const problem = h('div', { class: 'problem' });
  mount(
    main,
    h('h1', {}, 'Config entries'),
    h('p', { class: 'meta' }, workflow ? `Workflow ${workflow}` : `Folder ${path}`),
    placeForm,
    problem,
    workflow ? list : h('div', { class: 'split' }, folders, list),
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
  let beneath: Json[] = [];
  try {
    const listed = (await api<{ data: Json[] }>(`/workflows/config${q(workflow ? place : { path, descendants: 'true' })}`)).data;
    entries = workflow ? listed : listed.filter((entry) => entry.path === path);
    beneath = workflow ? [] : listed.filter((entry) => entry.path !== path);
  } catch (error) {
    return mount(list, errorState(error));
  }
  if (!workflow) mount(folders, ...folderLinks(path, beneath));
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
      ? empty(
          workflow
            ? 'No entries on this workflow.'
            : beneath.length > 0
              ? `No entries directly in ${path}; ${beneath.length} ${beneath.length === 1 ? 'entry is' : 'entries are'} in folders beneath it (listed below; pick a folder to change one).`
              : path === '/'
                ? 'No config entries yet in any folder.'
                : `No entries in ${path} or beneath it.`,
        )
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
    beneath.length > 0 ? h('h2', {}, `In folders beneath ${path}`) : null,
    beneath.length > 0 ? beneathTable(beneath) : null,
    mayWrite ? h('h2', {}, `Set an entry in ${workflow ? 'this workflow' : path}`) : null,
    mayWrite ? addForm : null,
  );
};

/** The folder, its parent, and each folder beneath it that holds entries (and the folders on the way), with counts. */
function folderLinks(path: string, beneath: Json[]): HTMLElement[] {
  const counts = new Map<string, number>();
  for (const entry of beneath) {
    const parts = text(entry.path).split('/').filter(Boolean);
    const base = path.split('/').filter(Boolean).length;
    // Every folder between this one and the entry's counts it (its subtree total).
    for (let i = base + 1; i <= parts.length; i++) {
      const folder = `/${parts.slice(0, i).join('/')}`;
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
  }
  const to = (folder: string, label: string, depth: number, count?: number) => {
    const a = link(
      `/console/config${q({ path: folder })}`,
      label,
      count !== undefined ? h('span', { class: 'count' }, `(${count})`) : null,
    );
    a.className = `folder depth-${Math.min(depth, 6)}${folder === path ? ' current' : ''}`;
    a.setAttribute('data-folder', folder);
    return a;
  };
  const parent = path === '/' ? undefined : path.split('/').slice(0, -1).join('/') || '/';
  const depthOf = (folder: string) => folder.split('/').filter(Boolean).length - path.split('/').filter(Boolean).length;
  return [
    ...(parent ? [to(parent, `↑ ${parent}`, 0)] : []),
    to(path, path === '/' ? '/ (root)' : path, 0),
    ...[...counts.keys()].sort().map((folder) => to(folder, folder.split('/').pop()!, depthOf(folder), counts.get(folder))),
  ];
}

function beneathTable(entries: Json[]): HTMLElement {
  return h(
    'table',
    { class: 'config beneath' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'Folder'), h('th', {}, 'Name'), h('th', {}, 'Kind'), h('th', {}, 'Value'), h('th', {}, 'Updated')),
    ),
    h(
      'tbody',
      {},
      ...entries.map((entry) =>
        h(
          'tr',
          { 'data-entry': text(entry.name), 'data-path': text(entry.path) },
          h('td', {}, link(`/console/config${q({ path: text(entry.path) })}`, text(entry.path))),
          h('td', {}, h('code', {}, text(entry.name))),
          h('td', {}, entry.secret ? 'secret' : 'variable'),
          h('td', {}, entry.secret ? h('span', { class: 'meta' }, 'write-only') : h('code', {}, text(entry.value ?? ''))),
          h('td', {}, formatTime(entry.updatedAt)),
        ),
      ),
    ),
  );
}
