/** Administration: one account, its fields, its NRN and its catalog metadata (schemas and tags). */
import { api, enc, q, type Json } from '../api';
import { h, json, link, mount, text } from '../dom';
import type { View } from '../nav';
import { errorState, loading } from '../states';
import { adminTabs } from './accounts';

export const accountView: View = async (main, [id]) => {
  const body = h('section', {}, loading());
  mount(main, adminTabs('accounts'), body);
  let account: Json;
  try {
    account = await api<Json>(`/account/${enc(id)}${q({ metadata_include: 'schemas,tags' })}`);
  } catch (error) {
    return mount(body, errorState(error));
  }
  const nrn = `organization=${text(account.organization_id)}:account=${text(account.id)}`;
  const metadata = account.metadata as Json | undefined;
  const extra = (metadata?.additional_properties ?? {}) as { tags?: Array<{ key: string; value: string }>; schemas?: unknown[] };
  const row = (label: string, value: Node | string) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, value));
  mount(
    body,
    h('h1', {}, text(account.name)),
    h(
      'table',
      { class: 'fields', 'data-account': text(account.id) },
      h(
        'tbody',
        {},
        row('Id', text(account.id)),
        row('Slug', h('code', {}, text(account.slug))),
        row('Status', h('span', { class: `badge account-${text(account.status)}` }, text(account.status))),
        row('Organization', text(account.organization_id)),
        row('NRN', h('code', { 'data-nrn': nrn }, nrn)),
        metadata ? row('Metadata', h('code', {}, `${text(metadata.key)} = ${text(metadata.value)}`)) : null,
        extra.tags && extra.tags.length > 0 ? row('Tags', extra.tags.map((t) => `${t.key}=${t.value}`).join(', ')) : null,
      ),
    ),
    extra.schemas && extra.schemas.length > 0
      ? h('details', {}, h('summary', {}, 'Metadata schemas'), h('pre', {}, json(extra.schemas)))
      : null,
    h(
      'p',
      {},
      'Grants are made per user: ',
      link(`/console/admin/users${q({ nrn })}`, 'grant a role on this account'),
      ' (the API lists grants by user, not by NRN).',
    ),
  );
};
