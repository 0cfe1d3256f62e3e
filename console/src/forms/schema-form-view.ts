/**
 * A JSON Schema rendered as a form: one field per property by type (text,
 * number, checkbox, select for enums, a fieldset for objects, one line per item
 * for arrays of primitives, JSON text for anything else), with required marks,
 * descriptions and readable constraints (`≥ value of minReplicas`). Every edit
 * re-checks the whole value (schema-form.ts) and shows each issue next to its
 * field; `show` places the API's field errors the same way.
 */
import { h, json, mount } from '../dom';
import {
  check,
  describeConstraints,
  isObject,
  isPrimitiveArray,
  parseInput,
  parseLines,
  toPointer,
  typeOf,
  type Issue,
  type Schema,
} from './schema-form';

export interface SchemaForm {
  element: HTMLElement;
  /** The value the fields hold now (properties the schema does not name are kept as they were). */
  value(): unknown;
  /** Checks the current value and shows its issues; answers them. */
  validate(): Issue[];
  /** Shows issues next to their fields (those with no field are listed above the form). */
  show(issues: Issue[]): void;
}

interface Built {
  element: HTMLElement;
  read(): unknown;
}

interface Field {
  pointer: string;
  element: HTMLElement;
  control?: HTMLElement;
  message: HTMLElement;
}

export function schemaForm(schema: Schema, initial: unknown, options: { id: string; readOnly?: boolean }): SchemaForm {
  const fields: Field[] = [];
  const general = h('ul', { class: 'form-issues', 'aria-live': 'polite' });
  let counter = 0;
  const nextId = () => `${options.id}-${(counter += 1)}`;

  function field(tokens: string[], node: Schema, label: string, required: boolean, control: HTMLElement | null, extra?: Node): HTMLElement {
    const pointer = toPointer(tokens);
    const message = h('p', { class: 'field-error', 'aria-live': 'polite' });
    const constraints = describeConstraints(node);
    const element = h(
      'div',
      { class: 'field', 'data-path': pointer },
      h(
        'label',
        control ? { for: control.id } : {},
        label,
        required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
        typeof node.type === 'string' ? h('span', { class: 'meta' }, ` ${node.type}`) : null,
      ),
      control,
      extra ?? null,
      typeof node.description === 'string' ? h('p', { class: 'hint' }, node.description) : null,
      constraints.length > 0 ? h('p', { class: 'constraints', 'data-constraints': pointer }, constraints.join(' · ')) : null,
      message,
    );
    fields.push({ pointer, element, control: control ?? undefined, message });
    return element;
  }

  function build(node: Schema, value: unknown, tokens: string[], label: string, required: boolean): Built {
    const type = typeOf(node);
    const disabled = options.readOnly === true;
    const name = toPointer(tokens);
    if (type === 'object' && isObject(node.properties)) {
      const properties = node.properties as Record<string, Schema>;
      const requiredNames = Array.isArray(node.required) ? (node.required as string[]) : [];
      const current = isObject(value) ? value : {};
      // Required properties first (in `required` order): stored schemas (jsonb) do not keep the author's key order.
      const rank = (key: string) => (requiredNames.includes(key) ? requiredNames.indexOf(key) : requiredNames.length);
      const children = Object.entries(properties)
        .filter(([, child]) => isObject(child))
        .sort(([a], [b]) => rank(a) - rank(b))
        .map(([key, child]) => ({ key, built: build(child, current[key], [...tokens, key], key, requiredNames.includes(key)) }));
      const fieldset = h(
        'fieldset',
        { class: 'object', 'data-path': name },
        tokens.length > 0 ? h('legend', {}, label, required ? h('span', { class: 'required', title: 'required' }, ' *') : null) : null,
        typeof node.description === 'string' ? h('p', { class: 'hint' }, node.description) : null,
        ...children.map((c) => c.built.element),
      );
      if (tokens.length > 0)
        fields.push({ pointer: name, element: fieldset, message: fieldset.appendChild(h('p', { class: 'field-error' })) });
      return {
        element: fieldset,
        read: () => {
          const out: Record<string, unknown> = { ...current };
          for (const { key, built } of children) {
            const v = built.read();
            if (v === undefined) delete out[key];
            else out[key] = v;
          }
          // An optional object nobody filled in stays absent.
          return !isObject(value) && tokens.length > 0 && Object.keys(out).length === 0 ? undefined : out;
        },
      };
    }
    const id = nextId();
    if (type === 'boolean') {
      const box = h('input', { type: 'checkbox', id, name, checked: value === true, disabled });
      // Unticked and absent before stays absent (the schema's default applies), rather than becoming false.
      return {
        element: field(tokens, node, label, required, box),
        read: () => (box.checked ? true : value === undefined ? undefined : false),
      };
    }
    if (Array.isArray(node.enum)) {
      const select = h(
        'select',
        { id, name, disabled },
        h('option', { value: '' }, required ? 'Choose…' : '(none)'),
        ...node.enum.map((option) => {
          const text = typeof option === 'string' ? option : JSON.stringify(option);
          return h('option', { value: text, selected: value !== undefined && JSON.stringify(option) === JSON.stringify(value) }, text);
        }),
      );
      return { element: field(tokens, node, label, required, select), read: () => parseInput(node, select.value) };
    }
    if (type === 'number' || type === 'integer') {
      const input = h('input', {
        type: 'number',
        id,
        name,
        step: type === 'integer' ? '1' : 'any',
        value: typeof value === 'number' ? String(value) : '',
        disabled,
      });
      return { element: field(tokens, node, label, required, input), read: () => parseInput(node, input.value) };
    }
    if (type === 'array' && isPrimitiveArray(node)) {
      const items = isObject(node.items) ? (node.items as Schema) : {};
      const area = h('textarea', { id, name, rows: 3, disabled }, Array.isArray(value) ? value.map(String).join('\n') : '');
      return {
        element: field(tokens, node, label, required, area, h('p', { class: 'hint' }, 'One item per line.')),
        read: () => (area.value.trim() === '' && value === undefined ? undefined : parseLines(items, area.value)),
      };
    }
    if (type === 'string' || type === undefined) {
      const input = h('input', {
        type: node.secret === true ? 'password' : 'text',
        id,
        name,
        value: typeof value === 'string' ? value : '',
        autocomplete: 'off',
        disabled,
      });
      return { element: field(tokens, node, label, required, input), read: () => parseInput(node, input.value) };
    }
    // Arrays of objects and the like: JSON text, checked by the API.
    const area = h('textarea', { id, name, rows: 4, class: 'json', disabled }, value === undefined ? '' : json(value));
    return {
      element: field(tokens, node, label, required, area, h('p', { class: 'hint' }, 'JSON.')),
      read: () => {
        if (area.value.trim() === '') return undefined;
        try {
          return JSON.parse(area.value) as unknown;
        } catch {
          return area.value;
        }
      },
    };
  }

  const root = build(schema, initial, [], '', false);
  const form: SchemaForm = {
    element: h('div', { class: 'schema-form', id: options.id }, general, root.element),
    value: () => root.read(),
    validate() {
      const issues = check(schema, root.read());
      form.show(issues);
      return issues;
    },
    show(issues) {
      mount(general);
      for (const f of fields) {
        mount(f.message);
        f.element.classList.remove('invalid');
        f.control?.removeAttribute('aria-invalid');
      }
      for (const issue of issues) {
        // The field itself, else the nearest enclosing one, else the list above the form.
        const target = fields
          .filter((f) => issue.path === f.pointer || issue.path.startsWith(`${f.pointer}/`))
          .sort((a, b) => b.pointer.length - a.pointer.length)[0];
        if (!target) {
          general.append(h('li', {}, issue.path ? h('code', {}, issue.path) : null, issue.path ? ' ' : null, issue.message));
          continue;
        }
        target.element.classList.add('invalid');
        target.control?.setAttribute('aria-invalid', 'true');
        const prefix = target.pointer === issue.path ? '' : `${issue.path.slice(target.pointer.length + 1)}: `;
        if (target.message.childNodes.length > 0) target.message.append('; ');
        target.message.append(h('span', {}, `${prefix}${issue.message}`));
      }
    },
  };
  if (!options.readOnly) {
    root.element.addEventListener('input', () => void form.validate());
    root.element.addEventListener('change', () => void form.validate());
  }
  return form;
}
