/** Administration: one user, their grants (revoke, approve pending ones) and the bulk grant form. */
import { api, enc, type Json } from '../api';
import { formatTime, h, mount, text } from '../dom';
import type { View } from '../nav';
import { can } from '../session';
import { empty, errorState, loading } from '../states';
import { grantForm, type RoleOption } from '../forms/grant-form';
import { adminTabs, organizationId } from './accounts';

export const userView: View = async (main, [id], query) => {
  const heading = h('h1', {}, `User ${id}`);
  const facts = h('p', { class: 'meta' });
  const problem = h('div', { class: 'problem' });
  const grantsSection = h('section', { class: 'grants' }, loading());
  const formSection = h('section', {});
  mount(main, adminTabs('users'), heading, facts, problem, h('h2', {}, 'Grants'), grantsSection, formSection);

  let user: Json;
  try {
    user = await api<Json>(`/user/${enc(id)}`);
  } catch (error) {
    return mount(grantsSection, errorState(error));
  }
  mount(
    facts,
    [text(user.type), text(user.name), text(user.email)].filter(Boolean).join(' · '),
    ` · organization ${text(user.organization_id)}`,
  );
  const [mayWrite, roles] = await Promise.all([
    can('grant:write'),
    api<{ results: Json[] }>('/role').then(
      (body) => body.results.map((r): RoleOption => ({ slug: text(r.slug), name: text(r.name) })),
      () => [] as RoleOption[],
    ),
  ]);

  const act = async (request: Promise<unknown>) => {
    mount(problem);
    try {
      await request;
    } catch (error) {
      mount(problem, errorState(error));
    }
    await loadGrants();
  };

  const loadGrants = async () => {
    let grants: Json[];
    try {
      grants = (await api<{ results: Json[] }>(`/user/${enc(id)}/grant`)).results;
    } catch (error) {
      return mount(grantsSection, errorState(error));
    }
    if (grants.length === 0) return mount(grantsSection, empty('No grants: this user may do nothing yet.'));
    mount(
      grantsSection,
      h(
        'table',
        { class: 'grants' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Grant'),
            h('th', {}, 'Role'),
            h('th', {}, 'NRN'),
            h('th', {}, 'Status'),
            h('th', {}, 'Granted'),
            h('th', {}, ''),
          ),
        ),
        h(
          'tbody',
          {},
          ...grants.map((grant) =>
            h(
              'tr',
              { 'data-grant': text(grant.id), 'data-role': text(grant.role_slug), 'data-nrn': text(grant.nrn) },
              h('td', {}, text(grant.id)),
              h('td', {}, text(grant.role_slug)),
              h('td', {}, h('code', {}, text(grant.nrn))),
              h('td', {}, h('span', { class: `badge grant-${text(grant.status)}` }, text(grant.status))),
              h('td', {}, formatTime(grant.created_at)),
              h(
                'td',
                {},
                mayWrite && grant.status === 'pending'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        'data-action': 'approve',
                        onclick: () => void act(api(`/user/${enc(id)}/grant/${enc(text(grant.id))}/approve`, { method: 'POST' })),
                      },
                      'Approve',
                    )
                  : null,
                ' ',
                mayWrite
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'data-action': 'revoke',
                        onclick: () => void act(api(`/user/${enc(id)}/grant/${enc(text(grant.id))}`, { method: 'DELETE' })),
                      },
                      'Revoke',
                    )
                  : null,
              ),
            ),
          ),
        ),
      ),
    );
  };

  await loadGrants();
  if (mayWrite) {
    const nrn = query.get('nrn') || `organization=${organizationId()}`;
    mount(
      formSection,
      h('h2', {}, 'Grant roles'),
      h('p', { class: 'meta' }, 'Each item grants one role on one NRN; the items are granted together or not at all.'),
      grantForm(id, roles, nrn, () => void loadGrants()),
    );
  }
};
