/**
 * `set-variable`: writes run variables, either `path` + `value` (dot paths
 * allowed), `name` + `value` (the compatible engine's older documented form,
 * often written under the step's `inputs:`: one plain variable; a dotted
 * name is refused, as the two engines could read it differently) or
 * `assignments {name: value}`. Passes its items on; outputs echo what was
 * written, in the spelling used (`{path, value}`, `{name, value}` or
 * `{assignments}`).
 */
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, obj } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

const setVariable: InlineRun = ({ config, items, ctx }) => {
  const written: Record<string, unknown> = {};
  if (config.path !== undefined && config.name !== undefined)
    return failure('PLUGIN_CONFIG_INVALID', 'set-variable takes "path" or "name" (its older spelling), not both');
  // `name` is the older spelling of `path` for one plain variable; a dotted one is refused (./validate-unsupported.ts).
  const target = typeof config.path === 'string' ? config.path : typeof config.name === 'string' ? config.name : undefined;
  if (typeof config.name === 'string' && !isPlainName(config.name))
    return failure('PLUGIN_CONFIG_INVALID', `set-variable name ${JSON.stringify(config.name)} ${PLAIN_NAME_RULE}`);
  const assignments: Array<[string, unknown]> = [];
  if (target !== undefined) assignments.push([target, config.value ?? null]);
  if (config.assignments !== null && typeof config.assignments === 'object') assignments.push(...Object.entries(config.assignments));
  if (assignments.length === 0)
    return failure('PLUGIN_CONFIG_INVALID', 'set-variable needs "path" (or "name") and "value", or "assignments"');
  for (const [path, value] of assignments) {
    const segments = path.replace(/^variables\./, '').split('.');
    if (segments.some((segment) => segment === '' || UNSAFE.has(segment)))
      return failure('PLUGIN_CONFIG_INVALID', `"${path}" is not a variable path`);
    let node = ctx.variables;
    for (const segment of segments.slice(0, -1)) {
      const next = node[segment];
      node = (node[segment] = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    node[segments[segments.length - 1]] = value;
    written[path] = value;
  }
  const key = typeof config.path === 'string' ? 'path' : 'name';
  const outputs = target !== undefined && assignments.length === 1 ? { [key]: target, value: written[target] } : { assignments: written };
  return { status: 'success', items, outputs };
};

/** What a set-variable `name` must be (publish and run time say the same). */
export const PLAIN_NAME_RULE =
  'must be one variable name without dots (the older form of set-variable names one variable); for a nested path write path: a.b';

export function isPlainName(name: string): boolean {
  return name !== '' && !name.includes('.') && !UNSAFE.has(name);
}

export const setVariablePlugin: InlinePlugin = {
  descriptor: {
    name: 'set-variable',
    kind: 'module',
    description: 'Writes workflow variables.',
    executeMode: 'all',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: closedOutputs({
      path: field('string', 'the variable written (path + value form)'),
      name: field('string', 'the variable written (name + value form)'),
      value: field(undefined, 'the value written (path or name form)'),
      assignments: field('object', 'every variable written, by name (assignments form)'),
    }),
    configSchema: {
      properties: {
        path: str(),
        name: str('the older spelling of path: one variable name, without dots', { minLength: 1 }),
        value: { type: 'any' },
        assignments: obj(),
      },
    },
  },
  run: setVariable,
};
