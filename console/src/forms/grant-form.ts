/**
 * The bulk grant form: rows of (role, NRN) sent together as `POST /user/{id}/grant`.
 * The API grants all or nothing and names every failing item (`causes`, by index):
 * those rows show their cause, the others say they were not created, and one
 * button sends them again without the failing rows. After a success every row shows its grant.
 */
import { api, ApiError, enc, type Json } from '../api';
import { h, mount, text } from '../dom';
import { errorState } from '../states';
import { asRows } from './grant-rows';

export interface RoleOption {
  slug: string;
  name: string;
}

interface Cause {
  code?: string;
  detail?: string;
  index?: number;
}

interface Row {
  element: HTMLElement;
  role: HTMLSelectElement | HTMLInputElement;
  nrn: HTMLInputElement;
  result: HTMLElement;
}

export function grantForm(userId: string, roles: RoleOption[], defaultNrn: string, onGranted: () => void): HTMLElement {
  const rows: Row[] = [];
  const body = h('tbody', {});
  const problem = h('div', { class: 'problem' });
  const after = h('div', { class: 'grant-after' });
  let counter = 0;

  const addRow = (nrn = defaultNrn, role = '') => {
    counter += 1;
    const roleControl =
      roles.length > 0
        ? h(
            'select',
            { name: 'role_slug', id: `grant-role-${counter}`, required: true },
            h('option', { value: '' }, 'Choose a role…'),
            ...roles.map((r) => h('option', { value: r.slug, selected: r.slug === role }, `${r.name} (${r.slug})`)),
          )
        : h('input', {
            type: 'text',
            name: 'role_slug',
            value: role,
            placeholder: 'role slug',
            required: true,
          });
    const nrnInput = h('input', {
      type: 'text',
      name: 'nrn',
      value: nrn,
      placeholder: 'organization=1:account=2',
      required: true,
      size: 36,
    });
    const result = h('td', { class: 'grant-result', 'aria-live': 'polite' });
    const row: Row = { element: h('tr', { class: 'grant-item' }), role: roleControl, nrn: nrnInput, result };
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'link',
        'data-action': 'remove-item',
        onclick: () => {
          rows.splice(rows.indexOf(row), 1);
          row.element.remove();
          renumber();
        },
      },
      'Remove',
    );
    row.element.append(h('td', { class: 'index' }), h('td', {}, roleControl), h('td', {}, nrnInput), result, h('td', {}, remove));
    rows.push(row);
    body.append(row.element);
    renumber();
  };
  const renumber = () =>
    rows.forEach((row, i) => {
      row.element.setAttribute('data-item', String(i));
      row.element.firstElementChild!.textContent = String(i + 1);
      // Named by the number shown, which changes as rows are removed.
      row.role.setAttribute('aria-label', `Role of row ${i + 1}`);
      row.nrn.setAttribute('aria-label', `NRN of row ${i + 1}`);
    });

  const clearResults = () => {
    mount(problem);
    mount(after);
    for (const row of rows) {
      mount(row.result);
      row.element.removeAttribute('data-result');
    }
  };
  const setResult = (row: Row, result: 'granted' | 'failed' | 'not-created', ...content: Array<Node | string>) => {
    row.element.setAttribute('data-result', result);
    mount(row.result, ...content);
  };

  const submit = async () => {
    clearResults();
    const items = rows.map((row) => ({ nrn: row.nrn.value.trim(), role_slug: row.role.value }));
    try {
      const grants = await api<Json[]>(`/user/${enc(userId)}/grant`, { method: 'POST', body: items });
      grants.forEach((grant, i) =>
        setResult(
          rows[i],
          'granted',
          h('span', { class: 'badge status-completed' }, text(grant.status) === 'pending' ? 'granted, pending approval' : 'granted'),
          ` #${text(grant.id)}`,
        ),
      );
      onGranted();
    } catch (error) {
      // Every failing item (`causes`), or the first one (`cause`) from an API that names only that.
      const body = error instanceof ApiError ? error.body : undefined;
      const causes = (Array.isArray(body?.causes) ? body.causes : body?.cause ? [body.cause] : []) as Cause[];
      const failed = new Map(causes.filter((c) => typeof c.index === 'number' && rows[c.index]).map((c) => [rows[c.index!], c]));
      if (failed.size === 0) return mount(problem, errorState(error));
      for (const row of rows) {
        const cause = failed.get(row);
        if (cause)
          setResult(
            row,
            'failed',
            h('span', { class: 'error-text', 'data-code': cause.code ?? '' }, cause.detail ? asRows(cause.detail) : 'failed'),
            ' ',
            h('code', {}, cause.code ?? ''),
          );
        else setResult(row, 'not-created', h('span', { class: 'meta' }, 'not created: the request is all or nothing'));
      }
      const others = rows.length - failed.size;
      if (others > 0)
        mount(
          after,
          h(
            'button',
            {
              type: 'button',
              'data-action': 'grant-others',
              onclick: () => {
                for (const row of failed.keys()) {
                  rows.splice(rows.indexOf(row), 1);
                  row.element.remove();
                }
                renumber();
                void submit();
              },
            },
            `Grant the other ${others} item${others === 1 ? '' : 's'}`,
          ),
        );
    }
  };

  addRow();
  const form = h(
    'form',
    { class: 'grant-form', 'aria-label': 'Grant roles' },
    h(
      'table',
      { class: 'grant-items' },
      h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Role'), h('th', {}, 'NRN'), h('th', {}, 'Result'), h('th', {}, ''))),
      body,
    ),
    h(
      'p',
      {},
      h('button', { type: 'button', 'data-action': 'add-item', onclick: () => addRow(rows.at(-1)?.nrn.value ?? defaultNrn) }, 'Add item'),
      ' ',
      h('button', { type: 'submit', class: 'primary', 'data-action': 'grant' }, 'Grant'),
    ),
    after,
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  return form;
}
