/** Administration: service specifications and provider specifications, each list paged as the API pages it. */
import { api, enc, q } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import type { View } from '../nav';
import { empty, errorState, loading } from '../states';
import { adminTabs, offsetPager, type AdminPage } from './accounts';

const PAGE_SIZE = 30;

export const specificationsView: View = async (main, _params, query) => {
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const providerOffset = Math.max(0, Number(query.get('providerOffset')) || 0);
  const services = h('section', { class: 'service-specifications' }, loading());
  const providers = h('section', { class: 'provider-specifications' }, loading());
  mount(
    main,
    h('h1', {}, 'Administration'),
    adminTabs('specifications'),
    h('h2', {}, 'Service specifications'),
    services,
    h('h2', {}, 'Provider specifications'),
    providers,
  );
  const href = (o: { offset?: number; providerOffset?: number }) =>
    `/console/admin/specifications${q({ offset: (o.offset ?? offset) || undefined, providerOffset: (o.providerOffset ?? providerOffset) || undefined })}`;
  const [serviceResult, providerResult] = await Promise.allSettled([
    api<AdminPage>(`/service_specification${q({ offset, limit: PAGE_SIZE })}`),
    api<AdminPage>(`/provider_specification${q({ offset: providerOffset, limit: PAGE_SIZE })}`),
  ]);
  if (serviceResult.status === 'rejected') mount(services, errorState(serviceResult.reason));
  else if (serviceResult.value.results.length === 0) mount(services, empty('No service specifications yet.'));
  else
    mount(
      services,
      h(
        'table',
        { class: 'specifications' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Slug'), h('th', {}, 'Type'), h('th', {}, 'Visible to'), h('th', {}, 'Updated')),
        ),
        h(
          'tbody',
          {},
          ...serviceResult.value.results.map((spec) =>
            h(
              'tr',
              { 'data-specification': text(spec.id) },
              h('td', {}, link(`/console/admin/specifications/service/${enc(text(spec.id))}`, text(spec.name))),
              h('td', {}, h('code', {}, text(spec.slug))),
              h('td', {}, text(spec.type)),
              h('td', {}, ((spec.visible_to as string[] | undefined) ?? []).join(', ')),
              h('td', {}, text(spec.updated_at)),
            ),
          ),
        ),
      ),
      offsetPager(serviceResult.value.paging, (o) => href({ offset: o })),
    );
  if (providerResult.status === 'rejected') return mount(providers, errorState(providerResult.reason));
  if (providerResult.value.results.length === 0) return mount(providers, empty('No provider specifications.'));
  mount(
    providers,
    h(
      'table',
      { class: 'specifications' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Slug'), h('th', {}, 'Owner'), h('th', {}, 'Updated'))),
      h(
        'tbody',
        {},
        ...providerResult.value.results.map((spec) =>
          h(
            'tr',
            { 'data-provider-specification': text(spec.id) },
            h('td', {}, link(`/console/admin/specifications/provider/${enc(text(spec.id))}`, text(spec.name))),
            h('td', {}, h('code', {}, text(spec.slug))),
            h('td', {}, spec.organization_id === null ? 'platform (global)' : `organization ${text(spec.organization_id)}`),
            h('td', {}, formatTime(spec.updated_at)),
          ),
        ),
      ),
    ),
    offsetPager(providerResult.value.paging, (o) => href({ providerOffset: o })),
  );
};
