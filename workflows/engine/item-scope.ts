/**
 * How a step meets its items (engine-reference §2, "executeMode and implicit
 * fan-out"), decided from the definition alone so that the validator and the
 * step runner decide the same way:
 *
 * - `metadata.fanOutPerItem: true|false` says it outright;
 * - else a config property that selects a mode (`code-exec` `mode`,
 *   `sub-workflow` `iterateItems`);
 * - else the plugin's `executeMode`, except that a step whose plugin runs
 *   once per batch (`log`, `set-variable`, `code-exec`…; not one that keeps
 *   its place across loop re-entries, `nodeState`) and whose config or inputs
 *   read `$item` or `$itemIndex`, and not `$items`, runs once per item: in the
 *   compatible engine such a step renders per item, and once per batch `$item`
 *   would be empty.
 *
 * Which item roots a step reads is found in the templates of its config and
 * inputs (and in the raw expressions of its config, for deciders), never in
 * runtime data.
 */
import type jsep from 'jsep';
import type { StepDefinition } from './definition';
import { parseExpression, templateSources, unwrapRaw } from './expressions';
import { executeModeOf, type PluginDescriptor } from './plugins/descriptor';

export type ItemRoot = '$item' | '$items' | '$itemIndex';
const ITEM_ROOTS: ReadonlySet<string> = new Set<ItemRoot>(['$item', '$items', '$itemIndex']);

/** One place a step's templates read an item root: `config` or `inputs`, then the keys down to the string. */
export interface ItemRootUse {
  root: ItemRoot;
  path: Array<string | number>;
}

/** Where a step's mode comes from (for messages): its metadata, a config property, its plugin, or its reading `$item`. */
export type ItemModeSource = 'metadata' | 'config' | 'plugin' | 'item' | 'passthrough';

export interface StepItemMode {
  mode: 'each' | 'all';
  source: ItemModeSource;
  /** Per-item calls even when several edges feed the step (a join): `fanOutPerItem: true`, or a step reading `$item`. */
  perItemEvenJoined: boolean;
}

/** What the mode needs of a plugin: a descriptor, or the pin an operator plugin leaves in a revision (no config schema). */
export type ModePlugin = Pick<PluginDescriptor, 'executeMode' | 'executeModeFrom' | 'nodeState'> & {
  configSchema?: PluginDescriptor['configSchema'];
};

const usesCache = new WeakMap<StepDefinition, ItemRootUse[]>();

/** Every place the step's config and inputs read `$item`, `$items` or `$itemIndex`, in document order. */
export function itemRootUses(step: StepDefinition, plugin: ModePlugin | undefined): ItemRootUse[] {
  let uses = usesCache.get(step);
  if (uses) return uses;
  uses = [];
  const rawKeys = new Set(
    Object.entries(plugin?.configSchema?.properties ?? {})
      .filter(([, property]) => property.format === 'expression')
      .map(([name]) => name),
  );
  if (isRecord(step.config)) {
    for (const [key, value] of Object.entries(step.config)) {
      if (rawKeys.has(key) && typeof value === 'string' && !value.includes('${{')) collectRaw(value, ['config', key], uses);
      else collectTemplates(value, ['config', key], uses, 0);
    }
  }
  if (isRecord(step.inputs)) collectTemplates(step.inputs, ['inputs'], uses, 0);
  usesCache.set(step, uses);
  return uses;
}

/** The step's mode: see the file comment. A step with `forEach` or `loop` calls its plugin per element instead (not here). */
export function stepItemMode(step: StepDefinition, plugin: ModePlugin | undefined): StepItemMode {
  const told = isRecord(step.metadata) ? step.metadata.fanOutPerItem : undefined;
  if (told === true) return { mode: 'each', source: 'metadata', perItemEvenJoined: true };
  if (told === false) return { mode: 'all', source: 'metadata', perItemEvenJoined: false };
  if (step.type === 'passthrough') return { mode: 'all', source: 'passthrough', perItemEvenJoined: false };
  if (!plugin) return { mode: 'each', source: 'plugin', perItemEvenJoined: false };
  const config = isRecord(step.config) ? step.config : {};
  const mode = executeModeOf(plugin, config);
  if (namesMode(plugin, config)) return { mode, source: 'config', perItemEvenJoined: false };
  if (mode === 'all' && plugin.nodeState !== true) {
    const roots = new Set(itemRootUses(step, plugin).map((use) => use.root));
    if ((roots.has('$item') || roots.has('$itemIndex')) && !roots.has('$items'))
      return { mode: 'each', source: 'item', perItemEvenJoined: true };
  }
  return { mode, source: 'plugin', perItemEvenJoined: false };
}

/** Whether the step's config names a mode through the plugin's mode property (`mode: all`, `iterateItems: true`). */
function namesMode(plugin: ModePlugin, config: Record<string, unknown>): boolean {
  const from = plugin.executeModeFrom;
  const value = from ? config[from.property] : undefined;
  return (typeof value === 'string' || typeof value === 'boolean') && Object.hasOwn(from!.modes, String(value));
}

function collectTemplates(value: unknown, path: Array<string | number>, into: ItemRootUse[], depth: number): void {
  if (depth > 64) return;
  if (typeof value === 'string') {
    if (!value.includes('${{')) return;
    for (const source of templateSources(value).sources) rootsOf(source, path, into);
    return;
  }
  if (Array.isArray(value)) value.forEach((entry, index) => collectTemplates(entry, [...path, index], into, depth + 1));
  else if (isRecord(value)) for (const [key, entry] of Object.entries(value)) collectTemplates(entry, [...path, key], into, depth + 1);
}

function collectRaw(source: string, path: Array<string | number>, into: ItemRootUse[]): void {
  rootsOf(unwrapRaw(source), path, into);
}

const rootCache = new WeakMap<jsep.Expression, ItemRoot[]>();

function rootsOf(source: string, path: Array<string | number>, into: ItemRootUse[]): void {
  const { ast } = parseExpression(source);
  if (!ast) return;
  let roots = rootCache.get(ast);
  if (!roots) {
    const found = new Set<ItemRoot>();
    visit(ast, found);
    roots = [...found];
    rootCache.set(ast, roots);
  }
  for (const root of roots) into.push({ root, path });
}

const CHILDREN = ['object', 'left', 'right', 'argument', 'callee', 'test', 'consequent', 'alternate'] as const;
const LISTS = ['arguments', 'elements', 'body', 'expressions'] as const;

/** Identifiers read as roots: a member's name (`steps.x.$item`) is not one unless computed (`a[$itemIndex]`). */
function visit(node: unknown, found: Set<ItemRoot>): void {
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.type === 'Identifier') {
    const name = record.name as string;
    if (ITEM_ROOTS.has(name)) found.add(name as ItemRoot);
    return;
  }
  for (const field of CHILDREN) if (record[field] !== undefined) visit(record[field], found);
  if (record.type === 'MemberExpression' && record.computed === true) visit(record.property, found);
  for (const field of LISTS) {
    const list = record[field];
    if (Array.isArray(list)) for (const child of list) visit(child, found);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
