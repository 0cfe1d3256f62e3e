/**
 * Administration: one service or provider specification, its JSON Schema
 * rendered as a form and checked live (schema-form.ts, `$data` comparisons
 * included). A service specification's attribute values are saved with
 * `PATCH /service_specification/{id}` (the API validates with Ajv and its field
 * errors land next to the fields); its action specifications' parameter schemas
 * and a provider specification's settings schema are rendered and checked only
 * (the console has nothing of theirs to save).
 */
import { api, ApiError, enc, type Json } from '../api';
import { h, json, mount, text } from '../dom';
import type { View } from '../nav';
import { can } from '../session';
import { errorState, loading } from '../states';
import { schemaForm, type SchemaForm } from '../forms/schema-form-view';
import { isObject, issuesUnder, type Schema } from '../forms/schema-form';
import { adminTabs } from './accounts';

const row = (label: string, value: Node | string) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, value));

export const specificationView: View = async (main, [kind, id]) => {
  const body = h('section', {}, loading());
  mount(main, adminTabs('specifications'), body);
  const service = kind === 'service';
  let spec: Json;
  try {
    spec = await api<Json>(`/${service ? 'service_specification' : 'provider_specification'}/${enc(id)}`);
  } catch (error) {
    return mount(body, errorState(error));
  }
  const visibleTo = ((spec.visible_to as string[] | undefined) ?? []).join(', ');
  const facts = h(
    'table',
    { class: 'fields' },
    h(
      'tbody',
      {},
      row('Kind', service ? 'service specification' : 'provider specification'),
      row('Slug', h('code', {}, text(spec.slug))),
      service ? row('Type', text(spec.type)) : null,
      visibleTo ? row('Visible to', h('code', {}, visibleTo)) : null,
      service ? row('Selectors', h('code', {}, text(spec.selectors))) : null,
      service ? row('Assignable to', text(spec.assignable_to)) : null,
      !service && typeof spec.description === 'string' ? row('Description', spec.description) : null,
      !service ? row('Owner', spec.organization_id === null ? 'platform (global)' : `organization ${text(spec.organization_id)}`) : null,
    ),
  );
  if (service) return serviceSpecification(body, spec, facts);
  const schema = isObject(spec.schema) ? (spec.schema as Schema) : {};
  const form = schemaForm(schema, {}, { id: 'settings-form' });
  mount(
    body,
    h('h1', {}, text(spec.name)),
    facts,
    h('h2', {}, 'Settings form'),
    h(
      'p',
      { class: 'meta' },
      'The settings an integration of this provider takes, checked as you type. Providers hold no values here: nothing is saved.',
    ),
    checkOnly(form),
    h('details', {}, h('summary', {}, 'JSON Schema'), h('pre', {}, json(schema))),
  );
};

async function serviceSpecification(body: HTMLElement, spec: Json, facts: HTMLElement): Promise<void> {
  const attributes = (isObject(spec.attributes) ? spec.attributes : {}) as { schema?: Schema; values?: Json };
  const schema = attributes.schema ?? {};
  const [mayWrite, actions] = await Promise.all([
    can('service_specification:write', (spec.visible_to as string[] | undefined)?.[0]),
    api<{ results: Json[] }>(`/service_specification/${enc(text(spec.id))}/action_specification`).then(
      (r) => r.results,
      () => [] as Json[],
    ),
  ]);
  const form = schemaForm(schema, attributes.values ?? {}, { id: 'attributes-form' });
  const status = h('div', { class: 'save-status', 'aria-live': 'polite' });
  const save = async () => {
    mount(status);
    form.validate();
    try {
      await api(`/service_specification/${enc(text(spec.id))}`, {
        method: 'PATCH',
        body: { attributes: { schema, values: form.value() } },
      });
      mount(status, h('p', { class: 'state saved', role: 'status' }, 'Saved.'));
    } catch (error) {
      const fieldErrors =
        error instanceof ApiError && Array.isArray(error.body?.errors)
          ? (error.body.errors as Array<{ path?: string; message?: string }>)
          : [];
      const issues = issuesUnder('/attributes/values', fieldErrors);
      if (issues.length > 0) form.show(issues);
      mount(status, errorState(error));
    }
  };
  const attributesForm = h(
    'form',
    { class: 'attributes', 'aria-label': 'Attribute values' },
    form.element,
    h(
      'p',
      {},
      h('button', { type: 'button', 'data-action': 'check', onclick: () => void form.validate() }, 'Check'),
      ' ',
      mayWrite ? h('button', { type: 'submit', class: 'primary', 'data-action': 'save-values' }, 'Save values') : null,
    ),
    status,
  );
  attributesForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (mayWrite) void save();
  });
  mount(
    body,
    h('h1', {}, text(spec.name)),
    facts,
    h('h2', {}, 'Attributes'),
    h(
      'p',
      { class: 'meta' },
      'The attribute schema as a form, with the specification’s values; checked as you type, saved through the API, which checks again.',
    ),
    attributesForm,
    h('details', {}, h('summary', {}, 'Attribute JSON Schema'), h('pre', {}, json(schema))),
    actions.length > 0 ? h('h2', {}, 'Action specifications') : null,
    ...actions.map((action) =>
      h(
        'details',
        { class: 'action-specification', 'data-action-specification': text(action.slug) },
        h('summary', {}, `${text(action.name)} (${text(action.type)})`),
        h('p', { class: 'meta' }, 'Its parameters as a form, checked as you type (actions are run on services).'),
        checkOnly(schemaForm(isObject(action.parameters) ? (action.parameters as Schema) : {}, {}, { id: `action-${text(action.slug)}` })),
      ),
    ),
  );
}

/** A rendered schema with a Check button and nothing to submit. */
function checkOnly(form: SchemaForm): HTMLElement {
  const f = h('form', {}, form.element, h('p', {}, h('button', { type: 'submit', 'data-action': 'check' }, 'Check')));
  f.addEventListener('submit', (event) => {
    event.preventDefault();
    form.validate();
  });
  return f;
}
