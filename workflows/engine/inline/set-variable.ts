/**
 * `set-variable`: writes run variables, either `path` + `value` (dot paths
 * allowed) or `assignments {name: value}`. Passes its items on; outputs echo
 * what was written.
 */
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, obj } from '../plugins/schema';

const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

const setVariable: InlineRun = ({ config, items, ctx }) => {
  const written: Record<string, unknown> = {};
  const assignments: Array<[string, unknown]> = [];
  if (typeof config.path === 'string') assignments.push([config.path, config.value ?? null]);
  if (config.assignments !== null && typeof config.assignments === 'object') assignments.push(...Object.entries(config.assignments));
  if (assignments.length === 0) return failure('PLUGIN_CONFIG_INVALID', 'set-variable needs "path" and "value", or "assignments"');
  for (const [path, value] of assignments) {
    const segments = path.replace(/^variables\./, '').split('.');
    if (segments.some((segment) => segment === '' || UNSAFE.has(segment)))
      return failure('PLUGIN_CONFIG_INVALID', `"${path}" is not a variable path`);
    let target = ctx.variables;
    for (const segment of segments.slice(0, -1)) {
      const next = target[segment];
      target = (target[segment] = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    target[segments[segments.length - 1]] = value;
    written[path] = value;
  }
  const outputs =
    typeof config.path === 'string' && assignments.length === 1
      ? { path: config.path, value: written[config.path] }
      : { assignments: written };
  return { status: 'success', items, outputs };
};

export const setVariablePlugin: InlinePlugin = {
  descriptor: {
    name: 'set-variable',
    kind: 'module',
    description: 'Writes workflow variables.',
    executeMode: 'all',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: { properties: { path: str(), value: { type: 'any' }, assignments: obj() } },
  },
  run: setVariable,
};
