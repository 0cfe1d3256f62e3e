/**
 * The run form of a workflow page: one typed field per declared input (the
 * definition's top-level `inputs:` and its manual trigger's `config.inputs`, as
 * the API checks them): text, number, a checkbox for booleans, a select for an
 * `enum`, a small JSON box for objects and arrays. Required inputs are marked and
 * checked here first (an empty string does not count as given). "Edit as JSON"
 * shows the whole inputs object for power users (and undeclared inputs).
 */
import { ApiError, type Json } from '../api';
import { h, mount, text } from '../dom';

export interface InputSpec {
  name: string;
  type: string;
  required: boolean;
  description: string;
  placeholder: string;
  default?: unknown;
  options?: unknown[];
}

/** Declared inputs of a definition: top-level `inputs:` first, then the first manual trigger's (the API's order). */
export function declaredInputs(definition: Json | null | undefined): InputSpec[] {
  const specs = new Map<string, InputSpec>();
  const add = (declared: unknown) => {
    if (!declared || typeof declared !== 'object' || Array.isArray(declared)) return;
    for (const [name, raw] of Object.entries(declared as Record<string, unknown>)) {
      if (specs.has(name)) continue;
      const spec = (raw && typeof raw === 'object' ? raw : {}) as Json;
      const schema = (spec.schema && typeof spec.schema === 'object' ? spec.schema : {}) as Json;
      const options = Array.isArray(spec.enum) ? spec.enum : Array.isArray(schema.enum) ? schema.enum : undefined;
      specs.set(name, {
        name,
        type: typeof spec.type === 'string' ? spec.type : typeof schema.type === 'string' ? schema.type : '',
        required: spec.required === true,
        description: typeof spec.description === 'string' ? spec.description : '',
        placeholder: typeof spec.placeholder === 'string' ? spec.placeholder : '',
        default: spec.default,
        options,
      });
    }
  };
  add(definition?.inputs);
  const steps = Object.values((definition?.steps ?? {}) as Record<string, Json>);
  const manual = steps.find((step) => step?.type === 'trigger' && step.pluginType === 'manual');
  add((manual?.config as Json | undefined)?.inputs);
  return [...specs.values()];
}

type Field = { spec: InputSpec; control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; error: HTMLElement };
type Shown = Field & { element: HTMLElement };
type Read = { ok: true; present: boolean; value?: unknown } | { ok: false; message: string };

export interface RunForm {
  element: HTMLFormElement;
  /** Marks the fields the API refused (`/inputs/<name>` paths of a 400). */
  showApiErrors(error: unknown): void;
}

export function runForm(
  specs: InputSpec[],
  options: { label: string; problem: HTMLElement; submit: (inputs: Json) => Promise<void> },
): RunForm {
  const fields: Shown[] = specs.map((spec) => field(spec));
  const json = h('textarea', { name: 'inputs', rows: 6, 'aria-label': 'Inputs (JSON object)', spellcheck: 'false' });
  const jsonBox = h('div', { class: 'field json-box', hidden: true }, h('span', { class: 'hint' }, 'All inputs as one JSON object'), json);
  const fieldset = h(
    'fieldset',
    {},
    h('legend', {}, 'Inputs'),
    fields.length === 0 ? h('p', { class: 'meta' }, 'This revision declares no inputs.') : null,
    ...fields.map((f) => f.element),
    jsonBox,
  );
  let jsonMode = false;
  const toggle = h('button', { type: 'button', 'data-action': 'inputs-json', 'aria-pressed': 'false' }, 'Edit as JSON');
  const element = h(
    'form',
    { class: 'run-form', novalidate: true },
    fieldset,
    h('div', { class: 'run-actions' }, h('button', { type: 'submit', class: 'primary', 'data-action': 'run' }, options.label), toggle),
  );

  const clearErrors = () => {
    mount(options.problem);
    for (const f of fields) setError(f, undefined);
  };
  /** The form's values as an inputs object, or undefined after marking each offending field. */
  const collect = (): Json | undefined => {
    const inputs: Json = {};
    const missing: string[] = [];
    let bad = false;
    for (const f of fields) {
      const read = readField(f);
      if (!read.ok) {
        setError(f, read.message);
        bad = true;
      } else if (!read.present) {
        if (f.spec.required) {
          setError(f, `${f.spec.name} is required.`);
          missing.push(f.spec.name);
        }
      } else inputs[f.spec.name] = read.value;
    }
    if (missing.length > 0 || bad) {
      mount(
        options.problem,
        h(
          'p',
          { class: 'error-text', role: 'alert', 'data-run-error': '' },
          missing.length > 0 ? `Fill in the required ${missing.length === 1 ? 'input' : 'inputs'}: ${missing.join(', ')}. ` : '',
          bad ? 'Some inputs are not valid: see the marked fields.' : '',
        ),
      );
      fields.find((f) => f.control.getAttribute('aria-invalid') === 'true')?.control.focus();
      return undefined;
    }
    return inputs;
  };
  /** The JSON box's object, checked against the declared required inputs as the form would be. */
  const collectJson = (): Json | undefined => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json.value.trim() === '' ? '{}' : json.value);
    } catch {
      mount(options.problem, h('p', { class: 'error-text', role: 'alert', 'data-run-error': '' }, 'The inputs are not valid JSON.'));
      return undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      mount(options.problem, h('p', { class: 'error-text', role: 'alert', 'data-run-error': '' }, 'The inputs must be a JSON object.'));
      return undefined;
    }
    const inputs = parsed as Json;
    const missing = specs.filter((spec) => spec.required && isMissing(inputs[spec.name])).map((spec) => spec.name);
    if (missing.length > 0) {
      mount(
        options.problem,
        h('p', { class: 'error-text', role: 'alert', 'data-run-error': '' }, `Fill in the required inputs: ${missing.join(', ')}.`),
      );
      return undefined;
    }
    return inputs;
  };

  toggle.addEventListener('click', () => {
    clearErrors();
    if (!jsonMode) {
      // Form → JSON: the values given so far (invalid ones left out).
      const inputs: Json = {};
      for (const f of fields) {
        const read = readField(f);
        if (read.ok && read.present) inputs[f.spec.name] = read.value;
      }
      json.value = JSON.stringify(inputs, null, 2);
    } else {
      // JSON → form: only from a valid object; else stay and say why.
      let parsed: unknown;
      try {
        parsed = JSON.parse(json.value.trim() === '' ? '{}' : json.value);
      } catch {
        return mount(options.problem, h('p', { class: 'error-text', role: 'alert' }, 'The inputs are not valid JSON.'));
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return mount(options.problem, h('p', { class: 'error-text', role: 'alert' }, 'The inputs must be a JSON object.'));
      for (const f of fields) writeField(f, (parsed as Json)[f.spec.name]);
    }
    jsonMode = !jsonMode;
    toggle.textContent = jsonMode ? 'Edit as a form' : 'Edit as JSON';
    toggle.setAttribute('aria-pressed', String(jsonMode));
    jsonBox.hidden = !jsonMode;
    for (const f of fields) f.element.hidden = jsonMode;
  });

  element.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors();
    const inputs = jsonMode ? collectJson() : collect();
    if (inputs) void options.submit(inputs);
  });

  return {
    element,
    showApiErrors(error) {
      if (!(error instanceof ApiError) || !Array.isArray(error.body?.errors)) return;
      for (const problem of error.body.errors as Array<{ path?: string; message?: string }>) {
        const name = /^\/inputs\/([^/]+)/
          .exec(problem.path ?? '')?.[1]
          ?.replace(/~1/g, '/')
          .replace(/~0/g, '~');
        const f = fields.find((candidate) => candidate.spec.name === name);
        if (f) setError(f, `${f.spec.name} ${problem.message ?? 'is not valid'}.`);
      }
    },
  };
}

const isMissing = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function field(spec: InputSpec): Shown {
  const id = `input-${spec.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const name = `input.${spec.name}`;
  const error = h('span', { class: 'field-error', id: `${id}-error`, 'aria-live': 'polite' });
  const common = {
    id,
    name,
    'aria-describedby': `${id}-error${spec.description ? ` ${id}-hint` : ''}`,
    'aria-required': spec.required ? 'true' : undefined,
  };
  let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (spec.options) {
    control = h(
      'select',
      common,
      h('option', { value: '' }, spec.required ? 'Choose…' : '—'),
      ...spec.options.map((option, i) => h('option', { value: String(i) }, text(option))),
    );
  } else if (spec.type === 'boolean') {
    control = h('input', { ...common, type: 'checkbox' });
  } else if (spec.type === 'number' || spec.type === 'integer') {
    control = h('input', {
      ...common,
      type: 'number',
      step: spec.type === 'integer' ? '1' : 'any',
      placeholder: spec.placeholder || undefined,
    });
  } else if (spec.type === 'object' || spec.type === 'array') {
    control = h('textarea', {
      ...common,
      rows: 1,
      spellcheck: 'false',
      placeholder: spec.placeholder || (spec.type === 'array' ? '[ ]' : '{ }'),
    });
  } else {
    control = h('input', { ...common, type: 'text', placeholder: spec.placeholder || undefined, autocomplete: 'off' });
  }
  const f: Field = { spec, control, error };
  if (spec.default !== undefined) writeField(f, spec.default);
  const label = h(
    'label',
    { for: id },
    spec.name,
    spec.required ? h('span', { class: 'required-mark', 'aria-hidden': 'true', title: 'required' }, '*') : null,
    spec.required ? h('span', { class: 'visually-hidden' }, ' (required)') : null,
    spec.type ? h('span', { class: 'hint' }, ` ${spec.type}`) : null,
  );
  const hint = spec.description ? h('span', { class: 'hint', id: `${id}-hint` }, spec.description) : null;
  const element =
    spec.type === 'boolean' && !spec.options
      ? h('div', { class: 'field checkbox', 'data-input': spec.name }, control, label, hint, error)
      : h('div', { class: 'field', 'data-input': spec.name }, label, control, hint, error);
  control.addEventListener('input', () => setError(f, undefined));
  return { ...f, element };
}

function setError(f: Field, message: string | undefined): void {
  f.error.textContent = message ?? '';
  if (message) f.control.setAttribute('aria-invalid', 'true');
  else f.control.removeAttribute('aria-invalid');
}

function readField({ spec, control }: Field): Read {
  if (spec.options) {
    const value = control.value;
    return value === '' ? { ok: true, present: false } : { ok: true, present: true, value: spec.options[Number(value)] };
  }
  if (spec.type === 'boolean') return { ok: true, present: true, value: (control as HTMLInputElement).checked };
  const raw = control.value;
  if (raw.trim() === '') return { ok: true, present: false };
  if (spec.type === 'number' || spec.type === 'integer') {
    const value = Number(raw);
    if (!Number.isFinite(value)) return { ok: false, message: `${spec.name} must be a number.` };
    if (spec.type === 'integer' && !Number.isInteger(value)) return { ok: false, message: `${spec.name} must be a whole number.` };
    return { ok: true, present: true, value };
  }
  if (spec.type === 'object' || spec.type === 'array') {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, message: `${spec.name} is not valid JSON.` };
    }
    if (spec.type === 'array' ? !Array.isArray(value) : !value || typeof value !== 'object' || Array.isArray(value))
      return { ok: false, message: `${spec.name} must be a JSON ${spec.type === 'array' ? 'array' : 'object'}.` };
    return { ok: true, present: true, value };
  }
  return { ok: true, present: true, value: raw };
}

function writeField({ spec, control }: Field, value: unknown): void {
  if (spec.options) {
    const i = spec.options.findIndex((option) => JSON.stringify(option) === JSON.stringify(value));
    control.value = i >= 0 ? String(i) : '';
  } else if (spec.type === 'boolean') (control as HTMLInputElement).checked = value === true;
  else if (value === undefined || value === null) control.value = '';
  else if (spec.type === 'object' || spec.type === 'array') control.value = JSON.stringify(value, null, 2);
  else control.value = typeof value === 'string' ? value : JSON.stringify(value);
}
