/**
 * Administration: the signed-in user's API keys (masked: a key's value is shown
 * only in the answer that created it), with their grants, expiry and last use,
 * and a way to revoke each. Keys are created through the API or a script.
 */
import { api, enc, q, type Json } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import type { View } from '../nav';
import { empty, errorState, loading } from '../states';
import { adminTabs, offsetPager, type AdminPage } from './accounts';

const PAGE_SIZE = 30;

export const apiKeysView: View = async (main, _params, query) => {
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const problem = h('div', { class: 'problem' });
  const list = h('section', {}, loading());
  mount(
    main,
    h('h1', {}, 'Administration'),
    adminTabs('api-keys'),
    h('h2', {}, 'Your API keys'),
    h(
      'p',
      { class: 'meta' },
      'Create one with ',
      h('code', {}, 'POST /api_key'),
      ' (',
      link('/docs', 'API reference'),
      '); a CI job exchanges it at ',
      h('code', {}, 'POST /token'),
      '.',
    ),
    problem,
    list,
  );

  const load = async () => {
    let page: AdminPage;
    try {
      page = await api<AdminPage>(`/api_key${q({ offset, limit: PAGE_SIZE })}`);
    } catch (error) {
      return mount(list, errorState(error));
    }
    if (page.results.length === 0) return mount(list, empty('No API keys.'));
    mount(
      list,
      h(
        'table',
        { class: 'api-keys' },
        h('thead', {}, h('tr', {}, ...['Name', 'Key', 'Grants', 'Expires', 'Last used', ''].map((label) => h('th', {}, label)))),
        h('tbody', {}, ...page.results.map((key) => row(key))),
      ),
      offsetPager(page.paging, (o) => `/console/admin/api-keys${q({ offset: o || undefined })}`),
    );
  };

  const revoke = async (key: Json) => {
    if (!confirm(`Revoke the API key "${text(key.name)}"? It and the tokens it gave stop working at once.`)) return;
    mount(problem);
    try {
      await api(`/api_key/${enc(text(key.id))}`, { method: 'DELETE' });
    } catch (error) {
      mount(problem, errorState(error));
    }
    await load();
  };

  const row = (key: Json) =>
    h(
      'tr',
      { 'data-api-key': text(key.id) },
      h('td', {}, text(key.name)),
      h('td', {}, h('code', {}, text(key.masked_api_key))),
      h(
        'td',
        {},
        ...((key.grants as Json[]) ?? []).map((grant) => h('div', {}, text(grant.role_slug), ' on ', h('code', {}, text(grant.nrn)))),
      ),
      h('td', {}, formatTime(key.expires_at)),
      h('td', {}, key.last_used_at ? formatTime(key.last_used_at) : 'never'),
      h('td', {}, h('button', { type: 'button', class: 'danger', 'data-action': 'revoke', onclick: () => void revoke(key) }, 'Revoke')),
    );

  await load();
};
