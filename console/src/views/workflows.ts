/** Workflows by folder (`path`), with search and paging. */
import { api, enc, q, type Json, type Page } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';

const PAGE_SIZE = 50;

export const workflowsView: View = async (main, _params, query) => {
  const folder = query.get('path') ?? '';
  const searched = query.get('text') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const search = h('input', {
    type: 'search',
    name: 'text',
    value: searched,
    placeholder: 'Search by name or key',
    'aria-label': 'Search workflows',
  });
  const form = h(
    'form',
    { class: 'filters', role: 'search' },
    search,
    h('button', { type: 'submit' }, 'Search'),
    link('/console/workflows/new', 'New workflow'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(`/console/workflows${q({ path: folder, text: search.value.trim() })}`);
  });
  const folders = h('nav', { class: 'folders', 'aria-label': 'Folders' });
  const list = h('section', { class: 'list' }, loading());
  mount(main, h('h1', {}, 'Workflows'), form, h('div', { class: 'split' }, folders, list));

  // The folder tree is built from every workflow's path (one page of up to 200 is plenty for the tree).
  const [pageResult, all] = await Promise.allSettled([
    api<Page<Json>>(`/workflows/definitions${q({ path: folder, text: searched, page, limit: PAGE_SIZE })}`),
    api<Page<Json>>(`/workflows/definitions${q({ limit: 200 })}`),
  ]);
  if (all.status === 'fulfilled')
    mount(folders, ...folderLinks(all.value.data, folder, searched, all.value.total <= all.value.data.length));
  if (pageResult.status === 'rejected') return mount(list, errorState(pageResult.reason));
  const result = pageResult.value;
  if (result.data.length === 0) {
    return mount(
      list,
      empty(searched || folder ? 'No workflow matches.' : 'No workflows yet: publish one with POST /workflows/definitions.'),
    );
  }
  mount(
    list,
    h(
      'table',
      { class: 'workflows' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Key'), h('th', {}, 'Folder'), h('th', {}, 'Updated'))),
      h(
        'tbody',
        {},
        ...result.data.map((wf) =>
          h(
            'tr',
            { 'data-workflow': text(wf.id) },
            h('td', {}, link(`/console/workflows/${enc(text(wf.id))}`, text(wf.name))),
            h('td', {}, h('code', {}, text(wf.key ?? ''))),
            h('td', {}, text(wf.path ?? '/')),
            h('td', {}, formatTime(wf.updatedAt)),
          ),
        ),
      ),
    ),
    pager(result, (p) => `/console/workflows${q({ path: folder, text: searched, page: p })}`),
  );
};

/** Folders from the workflows' paths, each with the number of workflows in it and beneath it (when every workflow was read). */
function folderLinks(workflows: Json[], current: string, searched: string, complete: boolean): HTMLElement[] {
  const counts = new Map<string, number>([['/', workflows.length]]);
  for (const wf of workflows) {
    const parts = text(wf.path ?? '/')
      .split('/')
      .filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const folder = `/${parts.slice(0, i).join('/')}`;
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
  }
  const paths = counts.keys();
  return [...paths].sort().map((path) => {
    const depth = path === '/' ? 0 : path.split('/').length - 1;
    const a = link(
      `/console/workflows${q({ path: path === '/' ? '' : path, text: searched })}`,
      path === '/' ? 'All folders' : path.split('/').pop()!,
      complete ? h('span', { class: 'count' }, `(${counts.get(path)})`) : null,
    );
    a.className = `folder depth-${Math.min(depth, 6)}${(current || '/') === path ? ' current' : ''}`;
    return a;
  });
}

/** `totalCapped` (the executions list): more match than `total` counted, so the count reads "1000+" and Next stays. */
export function pager(
  result: { page: number; limit: number; total: number; totalCapped?: boolean },
  href: (page: number) => string,
): HTMLElement {
  const pages = Math.max(1, Math.ceil(result.total / result.limit));
  const more = result.totalCapped === true;
  return h(
    'div',
    { class: 'pager' },
    result.page > 1 ? link(href(result.page - 1), '← Previous') : null,
    h('span', {}, more ? ` page ${result.page} of ${pages}+ (${result.total}+) ` : ` page ${result.page} of ${pages} (${result.total}) `),
    result.page < pages || more ? link(href(result.page + 1), 'Next →') : null,
  );
}
