/** Administration: the accounts of the signed-in organization, paged as the API pages them (offset and limit). */
import { api, enc, q, type Json } from '../api';
import { h, link, mount, text } from '../dom';
import type { View } from '../nav';
import { session } from '../session';
import { empty, errorState, loading } from '../states';

const PAGE_SIZE = 30;

/** What the administration lists answer: `paging` and `results`. */
export interface AdminPage<T = Json> {
  paging: { total: number; offset: number; limit: number };
  results: T[];
}

/** The administration pages' own tabs. */
export function adminTabs(current: 'accounts' | 'users' | 'specifications' | 'api-keys'): HTMLElement {
  const tab = (key: typeof current, href: string, label: string) => {
    const a = link(href, label);
    if (key === current) a.setAttribute('aria-current', 'page');
    return a;
  };
  return h(
    'nav',
    { class: 'admin-tabs', 'aria-label': 'Administration' },
    tab('accounts', '/console/admin/accounts', 'Accounts'),
    tab('users', '/console/admin/users', 'Users and grants'),
    tab('specifications', '/console/admin/specifications', 'Specifications'),
    tab('api-keys', '/console/admin/api-keys', 'API keys'),
  );
}

/** Previous and next links over an offset-paged administration list. */
export function offsetPager(paging: AdminPage['paging'], href: (offset: number) => string): HTMLElement {
  const { total, offset, limit } = paging;
  const last = Math.min(offset + limit, total);
  return h(
    'div',
    { class: 'pager' },
    offset > 0 ? link(href(Math.max(0, offset - limit)), '← Previous') : null,
    h('span', {}, total === 0 ? ' none ' : ` ${offset + 1}–${last} of ${total} `),
    offset + limit < total ? link(href(offset + limit), 'Next →') : null,
  );
}

export const organizationId = (): string => session()?.organizationId ?? '0';

export const accountsView: View = async (main, _params, query) => {
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const list = h('section', {}, loading());
  mount(main, h('h1', {}, 'Administration'), adminTabs('accounts'), h('h2', {}, `Accounts of organization ${organizationId()}`), list);
  let page: AdminPage;
  try {
    page = await api<AdminPage>(`/account${q({ organization_id: organizationId(), offset, limit: PAGE_SIZE })}`);
  } catch (error) {
    return mount(list, errorState(error));
  }
  if (page.results.length === 0)
    return mount(list, empty(offset > 0 ? 'No accounts on this page.' : 'No accounts yet: create one with POST /account.'));
  mount(
    list,
    h(
      'table',
      { class: 'accounts' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Slug'), h('th', {}, 'Id'), h('th', {}, 'Status'))),
      h(
        'tbody',
        {},
        ...page.results.map((account) =>
          h(
            'tr',
            { 'data-account': text(account.id) },
            h('td', {}, link(`/console/admin/accounts/${enc(text(account.id))}`, text(account.name))),
            h('td', {}, h('code', {}, text(account.slug))),
            h('td', {}, text(account.id)),
            h('td', {}, h('span', { class: `badge account-${text(account.status)}` }, text(account.status))),
          ),
        ),
      ),
    ),
    offsetPager(page.paging, (o) => `/console/admin/accounts${q({ offset: o || undefined })}`),
  );
};
