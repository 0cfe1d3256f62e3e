/**
 * A step's definition as the revision wrote it, for the workflow page's step
 * panel: kind, plugin (with its description from the catalog), config and
 * inputs with templates as written (a `${{ secrets.X }}` reference is shown as
 * the reference: the definition never holds a secret's value), what it depends
 * on and feeds, and its other settings (condition, forEach, retry, timeout…).
 */
import { api, enc, type Json } from '../api';
import { h, json, text } from '../dom';
import { iconName } from '../graph/icons';

const SHOWN_APART = new Set(['id', 'type', 'pluginType', 'plugin_type', 'name', 'description', 'config', 'inputs']);
const SECRET_REFERENCE = /\$\{\{\s*secrets\.[^}]*\}\}/g;

/** Plugin descriptions by name, read once per page load (`GET /workflows/plugins/{name}`). */
const descriptions = new Map<string, Promise<string>>();
function pluginDescription(name: string): Promise<string> {
  if (!descriptions.has(name)) {
    descriptions.set(
      name,
      api<Json>(`/workflows/plugins/${enc(name)}`)
        .then((plugin) => text(plugin.description))
        .catch(() => ''),
    );
  }
  return descriptions.get(name)!;
}

export function stepDefinition(definition: Json | null, stepId: string): HTMLElement {
  const steps = (definition?.steps ?? {}) as Record<string, Json>;
  const step = Object.hasOwn(steps, stepId) ? steps[stepId] : undefined;
  if (!step)
    return h('div', { 'data-step-definition': stepId }, h('h2', {}, stepId), h('p', { class: 'meta' }, 'No such step in this revision.'));
  const type = text(step.type);
  const plugin = text(step.pluginType ?? step.plugin_type);
  const connections = Array.isArray(definition?.connections) ? (definition.connections as Json[]) : [];
  const about = h('p', { class: 'meta plugin-description' });
  if (plugin) void pluginDescription(plugin).then((description) => (about.textContent = description));
  const settings = Object.entries(step).filter(([key]) => !SHOWN_APART.has(key));
  return h(
    'div',
    { 'data-step-definition': stepId },
    h(
      'h2',
      {},
      text(step.name) || stepId,
      ' ',
      h('span', { class: 'badge', 'data-icon': iconName(type, plugin) }, [type, plugin].filter(Boolean).join(' · ')),
    ),
    about,
    h(
      'dl',
      {},
      h('dt', {}, 'Step id'),
      h('dd', {}, h('code', {}, stepId)),
      h('dt', {}, 'Type'),
      h('dd', {}, type || '—'),
      h('dt', {}, 'Plugin'),
      h('dd', {}, plugin || '—'),
      step.description ? h('dt', {}, 'Description') : null,
      step.description ? h('dd', {}, text(step.description)) : null,
      h('dt', {}, 'Depends on'),
      h(
        'dd',
        { 'data-field': 'dependsOn' },
        links(
          connections.filter((c) => c.to === stepId),
          'from',
        ),
      ),
      h('dt', {}, 'Feeds'),
      h(
        'dd',
        {},
        links(
          connections.filter((c) => c.from === stepId),
          'to',
        ),
      ),
    ),
    section('Config', step.config, 'config'),
    section('Inputs', step.inputs, 'inputs'),
    settings.length > 0
      ? h(
          'details',
          { open: true },
          h('summary', {}, 'Settings'),
          h('dl', { 'data-field': 'settings' }, ...settings.flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, written(value))])),
        )
      : null,
  );
}

/** Connections as "step (port → port) [condition]" lines. */
function links(connections: Json[], end: 'from' | 'to'): Node | string {
  if (connections.length === 0) return '—';
  return h(
    'ul',
    { class: 'triggers' },
    ...connections.map((c) => {
      const ports = [text(c.sourcePort), text(c.targetPort)].filter((p) => p && p !== 'default' && p !== 'main');
      const condition = text(c.condition ?? c.label);
      return h(
        'li',
        {},
        h('code', {}, text(c[end])),
        ports.length > 0 ? ` (${text(c.sourcePort) || 'default'} → ${text(c.targetPort) || 'default'})` : '',
        condition ? ` [${condition}]` : '',
      );
    }),
  );
}

function section(title: string, value: unknown, field: string): HTMLElement | null {
  if (value === undefined || value === null) return null;
  const entries = typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Json) : undefined;
  return h(
    'details',
    { open: true },
    h('summary', {}, title),
    entries
      ? entries.length === 0
        ? h('p', { class: 'meta' }, 'none')
        : h('dl', { 'data-field': field }, ...entries.flatMap(([key, v]) => [h('dt', {}, key), h('dd', {}, written(v))]))
      : written(value),
  );
}

/** A value as written: strings as they are (several lines kept), anything else as JSON; secret references marked. */
function written(value: unknown): HTMLElement {
  const source = typeof value === 'string' ? value : json(value);
  const multiline = typeof value !== 'string' || source.includes('\n');
  const out = multiline ? h('pre', {}) : h('code', {});
  let last = 0;
  for (const match of source.matchAll(SECRET_REFERENCE)) {
    out.append(source.slice(last, match.index));
    out.append(
      h(
        'span',
        { class: 'secret-ref', title: 'A secret reference: the step resolves it when it runs; its value is never shown' },
        match[0],
      ),
    );
    last = match.index + match[0].length;
  }
  out.append(source.slice(last));
  return out;
}
