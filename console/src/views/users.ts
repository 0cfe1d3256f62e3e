/** Administration: the users of the organization (the targets of grants), paged, and a way to open one by id. */
import { api, enc, q } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { navigate, type View } from '../nav';
import { empty, errorState, loading } from '../states';
import { adminTabs, offsetPager, organizationId, type AdminPage } from './accounts';

const PAGE_SIZE = 30;

export const usersView: View = async (main, _params, query) => {
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  // An NRN to prefill in the grant form (from an account's page).
  const nrn = query.get('nrn') ?? undefined;
  const userHref = (id: unknown) => `/console/admin/users/${enc(text(id))}${q({ nrn })}`;
  const idInput = h('input', { type: 'number', min: 1, name: 'user', id: 'open-user', required: true, 'aria-label': 'User id' });
  const open = h('form', { class: 'filters' }, idInput, h('button', { type: 'submit' }, 'Open user'));
  open.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(userHref(idInput.value.trim()));
  });
  const list = h('section', {}, loading());
  mount(
    main,
    h('h1', {}, 'Administration'),
    adminTabs('users'),
    h('h2', {}, `Users of organization ${organizationId()}`),
    nrn ? h('p', { class: 'meta' }, 'Pick a user to grant a role on ', h('code', {}, nrn), '.') : null,
    open,
    list,
  );
  let page: AdminPage;
  try {
    page = await api<AdminPage>(`/user${q({ organization_id: organizationId(), offset, limit: PAGE_SIZE })}`);
  } catch (error) {
    return mount(list, errorState(error));
  }
  if (page.results.length === 0) return mount(list, empty('No users recorded yet.'));
  mount(
    list,
    h(
      'table',
      { class: 'users' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'User'), h('th', {}, 'Name'), h('th', {}, 'Email'), h('th', {}, 'Type'), h('th', {}, 'Recorded')),
      ),
      h(
        'tbody',
        {},
        ...page.results.map((user) =>
          h(
            'tr',
            { 'data-user': text(user.id) },
            h('td', {}, link(userHref(user.id), text(user.id))),
            h('td', {}, text(user.name)),
            h('td', {}, text(user.email)),
            h('td', {}, text(user.type)),
            h('td', {}, formatTime(user.created_at)),
          ),
        ),
      ),
    ),
    offsetPager(page.paging, (o) => `/console/admin/users${q({ offset: o || undefined, nrn })}`),
  );
};
