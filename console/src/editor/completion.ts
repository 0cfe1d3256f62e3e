/**
 * Completion for definitions in YAML (block style, as the editor writes it):
 * step `type`s, `pluginType`s (of the kind the step's type takes), the config
 * keys of the step's plugin from its descriptor (`GET /workflows/plugins`),
 * step keys, step ids in `dependsOn`, and template roots inside `${{ }}`
 * (docs/definitions.md; the roots a step's expression reads).
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import type { Text } from '@codemirror/state';

export interface PluginDescriptor {
  name: string;
  kind: string;
  description: string;
  configSchema?: { properties?: Record<string, { description?: string; type?: unknown }>; required?: string[] };
  /** What a step of the plugin outputs (`steps.<id>.outputs.<field>`); `additionalProperties: false`: these fields only. */
  outputSchema?: { properties?: Record<string, { description?: string; type?: unknown }>; additionalProperties?: unknown };
}

/** The step types the engine accepts (docs/definitions.md, "Steps: ids, types and plugins"). */
export const STEP_TYPES = ['trigger', 'module', 'decider', 'wait', 'subworkflow', 'observer', 'passthrough'];

const STEP_KEYS = [
  'type',
  'pluginType',
  'name',
  'description',
  'config',
  'dependsOn',
  'joinStrategy',
  'joinCount',
  'condition',
  'timeout',
  'errorHandling',
  'forEach',
  'loop',
  'metadata',
  'outputProjection',
];

/** Template roots with what they hold (workflows/engine/runtime/context.ts `stepScope`, and `secrets`). */
const ROOTS: Array<[string, string]> = [
  ['workflow.inputs', 'the run inputs'],
  ['workflow.variables', 'the per-run variables'],
  ['workflow.id', 'the workflow id'],
  ['workflow.key', 'the workflow key'],
  ['variables', 'the per-run variables'],
  ['execution.id', 'this execution'],
  ['execution.revision', 'the revision running'],
  ['execution.alias', 'the alias started'],
  ['execution.startedAt', 'when the run started'],
  ['execution.correlationKey', 'the correlation key'],
  ['trigger.payload', 'what started the run'],
  ['trigger.source', 'manual, webhook, cron…'],
  ['signal.payload', 'the signal that released a wait'],
  ['vars.', 'a config variable'],
  ['secrets.', 'a secret (resolved by the activity)'],
  ['inputs', "the step's inputs"],
  ['$item', 'the current item'],
  ['$items', 'the items of the batch'],
  ['$itemIndex', "the current item's index"],
  ['$itemsLength', 'how many items'],
];

/** Which plugin kinds fit a step type (a plugin must fit its step). */
const KINDS_FOR_TYPE: Record<string, string[]> = { trigger: ['trigger'], decider: ['decider'] };

const indentOf = (line: string): number => /^ */.exec(line)![0].length;

/** The nearest line above `lineNo` indented less than `indent` (its parent key), with its number. */
function parentLine(doc: Text, lineNo: number, indent: number): { text: string; no: number } | undefined {
  for (let n = lineNo - 1; n >= 1; n -= 1) {
    const text = doc.line(n).text;
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
    if (indentOf(text) < indent) return { text, no: n };
  }
  return undefined;
}

/** The value of `key:` among the lines of the block that holds line `lineNo` at `indent`. */
function siblingValue(doc: Text, lineNo: number, indent: number, key: string): string | undefined {
  const pattern = new RegExp(`^ {${indent}}(?:- )?${key}:\\s*["']?([\\w-]+)`);
  for (const step of [-1, 1]) {
    for (let n = lineNo; n >= 1 && n <= doc.lines; n += step) {
      const text = doc.line(n).text;
      if (text.trim() !== '' && indentOf(text) < indent) break;
      const found = pattern.exec(text);
      if (found) return found[1];
    }
  }
  return undefined;
}

/** The `pluginType` of step `id`: in its block under `steps:` (map form `id:`), or beside its `- id: id` (array form). */
export function stepPluginType(doc: Text, id: string): string | undefined {
  const header = new RegExp(`^(\\s*)(?:${id}:\\s*$|- id:\\s*["']?${id}["']?\\s*$)`);
  for (let n = 1; n <= doc.lines; n += 1) {
    const found = header.exec(doc.line(n).text);
    if (!found) continue;
    const indent = found[1].length;
    const arrayForm = doc.line(n).text.trimStart().startsWith('- ');
    const sameLine = /(?:pluginType|plugin_type):\s*["']?([\w-]+)/;
    for (let m = n + 1; m <= doc.lines; m += 1) {
      const text = doc.line(m).text;
      if (text.trim() === '') continue;
      // The block ends at the next line indented as the header or less (the next step, or what follows `steps:`).
      if (indentOf(text) <= indent) break;
      const plugin = sameLine.exec(text);
      if (plugin && indentOf(text) <= indent + (arrayForm ? 2 : 4)) return plugin[1];
    }
  }
  return undefined;
}

/** Completions for `steps.<id>.outputs.`: the fields the step's plugin declares it outputs. */
function outputFieldOptions(doc: Text, word: string, plugins: PluginDescriptor[]): Completion[] | undefined {
  const match = /^steps\.([A-Za-z_]\w*)\.outputs\.\w*$/.exec(word);
  if (!match) return undefined;
  const pluginType = stepPluginType(doc, match[1]);
  const descriptor = plugins.find((plugin) => plugin.name === pluginType);
  const fields = Object.entries(descriptor?.outputSchema?.properties ?? {});
  return fields.map(([name, schema]) => ({
    label: `steps.${match[1]}.outputs.${name}`,
    detail: typeof schema.type === 'string' ? schema.type : Array.isArray(schema.type) ? schema.type.join(' | ') : 'any',
    info: schema.description,
    type: 'property',
  }));
}

/** The ids under `steps:` (keys one level in). */
function stepIds(doc: Text): string[] {
  const ids: string[] = [];
  let stepsIndent = -1;
  let childIndent = -1;
  for (let n = 1; n <= doc.lines; n += 1) {
    const text = doc.line(n).text;
    if (text.trim() === '') continue;
    const indent = indentOf(text);
    if (stepsIndent >= 0 && indent <= stepsIndent) stepsIndent = -1;
    if (stepsIndent < 0) {
      if (/^\s*steps:\s*$/.test(text)) {
        stepsIndent = indent;
        childIndent = -1;
      }
      continue;
    }
    if (childIndent < 0) childIndent = indent;
    const key = /^\s*([A-Za-z_][A-Za-z0-9_]*):/.exec(text);
    if (indent === childIndent && key) ids.push(key[1]);
  }
  return ids;
}

export function definitionCompletion(plugins: () => PluginDescriptor[]): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);

    // Inside ${{ … }}: template roots and the ids of the steps written so far.
    const open = before.lastIndexOf('${{');
    if (open >= 0 && before.indexOf('}}', open) < 0) {
      const word = context.matchBefore(/[\w$.]*$/)!;
      const fields = outputFieldOptions(context.state.doc, word.text, plugins());
      if (fields && fields.length > 0) return { from: word.from, options: fields, validFor: /^[\w$.]*$/ };
      const options: Completion[] = [
        ...ROOTS.map(([label, detail]) => ({ label, detail, type: 'variable' })),
        ...stepIds(context.state.doc).flatMap((id) =>
          ['outputs', 'items', 'status'].map((part) => ({ label: `steps.${id}.${part}`, detail: `step ${id}`, type: 'property' })),
        ),
      ];
      return { from: word.from, options, validFor: /^[\w$.]*$/ };
    }

    // A value after `type:` or `pluginType:`.
    const value = /^(\s*)(?:- )?(type|pluginType|plugin_type):\s+["']?([\w-]*)$/.exec(before);
    if (value) {
      const from = context.pos - value[3].length;
      if (value[2] === 'type') return { from, options: STEP_TYPES.map((t) => ({ label: t, type: 'enum' })), validFor: /^[\w-]*$/ };
      const stepType = siblingValue(context.state.doc, line.number, value[1].length, 'type');
      const kinds = stepType ? (KINDS_FOR_TYPE[stepType] ?? ['module']) : undefined;
      const options = plugins()
        .filter((p) => !kinds || kinds.includes(p.kind))
        .map((p) => ({ label: p.name, detail: p.kind, info: p.description, type: 'class' }));
      return { from, options, validFor: /^[\w-]*$/ };
    }

    // A key being typed: what fits depends on the parent key.
    const key = /^(\s*)(- )?([\w$]*)$/.exec(before);
    if (!key || (!context.explicit && key[3] === '' && !key[2])) return null;
    const indent = key[1].length + (key[2] ? 2 : 0);
    const parent = parentLine(context.state.doc, line.number, key[2] ? key[1].length + 1 : indent);
    if (!parent) return null;
    const parentKey = /^\s*(?:- )?([\w$]+):\s*$/.exec(parent.text)?.[1];
    const from = context.pos - key[3].length;
    if (parentKey === 'dependsOn' || parentKey === 'depends_on') {
      return { from, options: stepIds(context.state.doc).map((id) => ({ label: id, type: 'variable' })), validFor: /^\w*$/ };
    }
    if (parentKey === 'config') {
      const plugin = siblingValue(context.state.doc, parent.no, indentOf(parent.text), '(?:pluginType|plugin_type)');
      const descriptor = plugins().find((p) => p.name === plugin);
      const properties = Object.entries(descriptor?.configSchema?.properties ?? {});
      const required = new Set(descriptor?.configSchema?.required ?? []);
      return {
        from,
        options: properties.map(([name, schema]) => ({
          label: name,
          apply: `${name}: `,
          detail: required.has(name) ? 'required' : typeof schema.type === 'string' ? schema.type : undefined,
          info: schema.description,
          type: 'property',
        })),
        validFor: /^\w*$/,
      };
    }
    const grandparent = parentLine(context.state.doc, parent.no, indentOf(parent.text));
    if (grandparent && /^\s*steps:\s*$/.test(grandparent.text)) {
      return { from, options: STEP_KEYS.map((k) => ({ label: k, apply: `${k}: `, type: 'property' })), validFor: /^\w*$/ };
    }
    return null;
  };
}
