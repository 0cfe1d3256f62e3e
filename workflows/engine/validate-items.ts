/**
 * Publish checks of how a step meets its items (engine-reference §1
 * "Validation", §2 "executeMode and implicit fan-out" and "forEach"), so that
 * a definition that validates runs as written:
 *
 * - a step that runs once per item cannot read `$items`
 *   (`FANOUT_ITEMS_UNAVAILABLE`, as the compatible engine answers): not in a
 *   template of its config or inputs, nor as the `$items` global of a
 *   `code-exec` script, where it would quietly be the one item;
 * - a step that runs once for its whole batch cannot read `$item` or
 *   `$itemIndex` (`BATCH_ITEM_UNAVAILABLE`): they would be the first item and
 *   0. (A batch plugin reading only `$item` runs per item instead:
 *   ./item-scope.ts.) Except `$item` with `metadata.fanOutPerItem: false`: the
 *   compatible engine reads it as the batch's incoming item, and so does this.
 * - in a `forEach` (or `loop.forEach`) step, `$item` is the step's incoming
 *   item, not the element, and in its inputs (resolved once, before the first
 *   iteration) `$itemIndex` is 0: the element is `inputs.<itemVariable>` /
 *   `variables.<itemVariable>` (its keys with `spreadItem`), its index
 *   `variables.<indexVariable>`;
 * - the `forEach` options and fan-out settings the runtime reads as written
 *   (`parallel`, `spreadItem`, `maxConcurrency`, the variable names,
 *   `metadata.fanOutPerItem`, `maxParallelism`) must have the types it reads.
 */
import { parseJs } from './js-parser';
import { RESERVED_STEP_IDS, STEP_ID_PATTERN, STEP_TYPES, type DefinitionIssue, type StepDefinition } from './definition';
import { itemRootUses, stepItemMode, type ItemRoot, type StepItemMode } from './item-scope';
import { isObject, type StepSource } from './normalize';
import { scriptProperties, type PluginDescriptor } from './plugins/descriptor';
import { fieldPath } from './validate-step';

export function checkItemScope(
  step: StepDefinition,
  plugin: PluginDescriptor | undefined,
  source: StepSource,
  issues: DefinitionIssue[],
): void {
  checkFanOutSettings(step, source, issues);
  // Triggers and passthrough steps call no plugin: nothing in them is resolved per item or per batch.
  if (step.type === 'trigger' || step.type === 'passthrough' || !(STEP_TYPES as readonly unknown[]).includes(step.type)) return;
  const at = (path: Array<string | number>) => fieldPath(source, String(path[0]), ...path.slice(1));
  const uses = itemRootUses(step, plugin);
  if (isObject(step.forEach) || (isObject(step.loop) && step.loop.forEach !== undefined)) {
    // Each iteration resolves the config with $itemIndex = the element's index; the inputs are resolved once, before the first.
    for (const use of uses)
      if (use.root === '$item' || (use.root === '$itemIndex' && use.path[0] === 'inputs'))
        issues.push({ path: at(use.path), message: notTheElement(step, use.root) });
    return;
  }
  // A `loop.while` step calls its plugin once per run with the step's items (and the run's index as $itemIndex).
  if (isObject(step.loop)) return;
  // An unknown plugin is reported as such; its mode is unknown.
  if (!plugin && step.pluginType !== undefined) return;
  const mode = stepItemMode(step, plugin);
  const readsItems = uses.some((use) => use.root === '$items');
  if (mode.mode === 'each') {
    const message = itemsUnavailable(step, plugin, mode);
    for (const use of uses) if (use.root === '$items') issues.push({ path: at(use.path), message });
    for (const name of scriptProperties(plugin)) {
      const code = step.config?.[name];
      if (typeof code === 'string' && readsGlobal(code, '$items')) issues.push({ path: at(['config', name]), message });
    }
    return;
  }
  // Told to run once for the batch (`metadata.fanOutPerItem: false`), `$item` is the batch's incoming item (the first),
  // as the compatible engine reads it; a plugin that keeps its place across loop re-entries has no such item.
  const itemIsFirst = mode.source === 'metadata' && plugin?.nodeState !== true;
  for (const use of uses) {
    if (use.root === '$item' && itemIsFirst) continue;
    if (use.root !== '$items') issues.push({ path: at(use.path), message: itemUnavailable(step, plugin, mode, use.root, readsItems) });
  }
}

/** Why the step runs once per item or once per batch, as the author wrote it. */
function because(step: StepDefinition, plugin: PluginDescriptor | undefined, mode: StepItemMode): string {
  if (mode.source === 'metadata') return `metadata.fanOutPerItem: ${mode.mode === 'each'}`;
  if (mode.source === 'config' && plugin?.executeModeFrom) {
    const property = plugin.executeModeFrom.property;
    return `config ${property}: ${String(step.config?.[property])}`;
  }
  return `plugin ${plugin?.name ?? step.pluginType ?? step.type}`;
}

/** How to ask for the other mode: the plugin's mode property when it has one, else `metadata.fanOutPerItem`. */
function switchTo(plugin: PluginDescriptor | undefined, mode: StepItemMode, wanted: 'each' | 'all'): string {
  const from = plugin?.executeModeFrom;
  const value = from && Object.entries(from.modes).find(([, m]) => m === wanted)?.[0];
  if (mode.source === 'config' && from && value !== undefined) return `set ${from.property}: ${value}`;
  if (mode.source === 'metadata' && plugin?.executeMode === wanted) return `remove metadata.fanOutPerItem: ${wanted === 'all'}`;
  return `set metadata.fanOutPerItem: ${wanted === 'each'}`;
}

function itemsUnavailable(step: StepDefinition, plugin: PluginDescriptor | undefined, mode: StepItemMode): string {
  return (
    `FANOUT_ITEMS_UNAVAILABLE: step "${step.id}" runs once per item (${because(step, plugin, mode)}), so $items is not available to it: ` +
    `read $item, $itemIndex and $itemsLength, or ${switchTo(plugin, mode, 'all')} to run it once with the whole batch in $items`
  );
}

function itemUnavailable(
  step: StepDefinition,
  plugin: PluginDescriptor | undefined,
  mode: StepItemMode,
  root: ItemRoot,
  readsItems: boolean,
): string {
  const empty = root === '$item' ? '$item is empty' : '$itemIndex is always 0';
  const instead = root === '$item' ? 'read $items (e.g. $items[0])' : 'read $items and $itemsLength';
  const head = `BATCH_ITEM_UNAVAILABLE: step "${step.id}" runs once for its whole batch (${because(step, plugin, mode)})`;
  if (plugin?.nodeState === true && mode.source === 'plugin')
    return `${head}, so ${empty} there: ${instead} (it keeps its place across loop re-entries, so it never runs per item)`;
  if (readsItems && mode.source === 'plugin')
    return `${head} and also reads $items, so ${empty} there: ${instead}, or split it into a step that reads $item (it runs once per item) and one that reads $items`;
  return `${head}, so ${empty} there: ${instead}, or ${switchTo(plugin, mode, 'each')} to run it once per item`;
}

function notTheElement(step: StepDefinition, root: ItemRoot): string {
  const forEach = isObject(step.forEach);
  const options = (forEach ? step.forEach : step.loop) as Record<string, unknown>;
  const nameOf = (key: string, fallback: string) => {
    const name = options[key];
    return typeof name === 'string' ? name : fallback;
  };
  const item = nameOf(forEach ? 'itemVariable' : 'itemName', 'item');
  const index = nameOf(forEach ? 'indexVariable' : 'indexName', 'index');
  const kind = forEach ? 'forEach' : 'loop.forEach';
  if (root === '$item')
    return (
      `in a ${kind} step, $item is the step's incoming item, not the element (its inputs are resolved once, before the first iteration): ` +
      `read the element as inputs.${item} or variables.${item}` +
      (forEach ? ', or set forEach.spreadItem: true and read its keys as inputs.<key>' : '')
    );
  return `in the inputs of a ${kind} step (resolved once, before the first iteration), $itemIndex is always 0: read the element's index as inputs.${index} or variables.${index}`;
}

/** The `forEach` options and fan-out settings the step runner reads as they are written (never through templates). */
function checkFanOutSettings(step: StepDefinition, source: StepSource, issues: DefinitionIssue[]): void {
  const positive = (value: unknown) => Number.isInteger(value) && (value as number) >= 1;
  const literal = 'must be an integer >= 1 (the engine reads it as written: templates are not evaluated there)';
  if (isObject(step.forEach)) {
    const forEach = step.forEach;
    for (const key of ['parallel', 'spreadItem'] as const)
      if (forEach[key] !== undefined && typeof forEach[key] !== 'boolean')
        issues.push({ path: fieldPath(source, 'forEach', key), message: 'must be a boolean' });
    if (forEach.maxConcurrency !== undefined && !positive(forEach.maxConcurrency))
      issues.push({ path: fieldPath(source, 'forEach', 'maxConcurrency'), message: literal });
    for (const key of ['itemVariable', 'indexVariable'] as const) {
      const name = forEach[key];
      if (name !== undefined && !(typeof name === 'string' && STEP_ID_PATTERN.test(name) && !RESERVED_STEP_IDS.has(name)))
        issues.push({ path: fieldPath(source, 'forEach', key), message: 'must be a variable name matching ^[A-Za-z_][A-Za-z0-9_]*$' });
    }
  }
  if (isObject(step.metadata)) {
    if (step.metadata.fanOutPerItem !== undefined && typeof step.metadata.fanOutPerItem !== 'boolean')
      issues.push({ path: fieldPath(source, 'metadata', 'fanOutPerItem'), message: 'must be a boolean' });
    if (step.metadata.maxParallelism !== undefined && !positive(step.metadata.maxParallelism))
      issues.push({ path: fieldPath(source, 'metadata', 'maxParallelism'), message: literal });
  }
  if (isObject(step.config) && step.config.maxParallelism !== undefined && !positive(step.config.maxParallelism))
    issues.push({ path: fieldPath(source, 'config', 'maxParallelism'), message: literal });
}

type Node = { type: string } & Record<string, unknown>;

/**
 * Whether a script reads the global `name` (an identifier used as a value, not a property name or a label),
 * unless it declares that name itself. Templates stand as plain names; a script that does not parse reads nothing
 * here (its own check reports it).
 */
export function readsGlobal(code: string, name: string): boolean {
  if (!code.includes(name)) return false;
  let program: Node;
  try {
    const source = `(async () => {\n${code.replace(/\$\{\{[\s\S]*?\}\}/g, '__template')}\n})()`;
    program = parseJs(source, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as Node;
  } catch {
    return false;
  }
  let read = false;
  let declared = false;
  const visit = (node: Node, parent?: Node, key?: string): void => {
    if (node.type === 'Identifier' && node.name === name) {
      if (isDeclaration(parent, key)) declared = true;
      else if (!isPropertyName(node, parent, key)) read = true;
    }
    for (const [field, child] of Object.entries(node)) {
      if (Array.isArray(child)) {
        for (const entry of child) if (isNode(entry)) visit(entry, node, field);
      } else if (isNode(child)) visit(child, node, field);
    }
  };
  visit(program);
  return read && !declared;
}

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && typeof (value as Node).type === 'string';
}

function isPropertyName(node: Node, parent: Node | undefined, key: string | undefined): boolean {
  if (!parent) return false;
  if (parent.type === 'MemberExpression') return key === 'property' && parent.computed !== true;
  if (['Property', 'MethodDefinition', 'PropertyDefinition'].includes(parent.type))
    return key === 'key' && parent.computed !== true && parent.value !== node;
  return ['LabeledStatement', 'BreakStatement', 'ContinueStatement'].includes(parent.type) && key === 'label';
}

/** A name bound here (approximate: any binding of the name anywhere counts as the script's own). */
function isDeclaration(parent: Node | undefined, key: string | undefined): boolean {
  if (!parent) return false;
  if (parent.type === 'VariableDeclarator') return key === 'id';
  if (['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'].includes(parent.type))
    return key === 'id' || key === 'params';
  if (parent.type === 'CatchClause') return key === 'param';
  if (['ClassDeclaration', 'ClassExpression'].includes(parent.type)) return key === 'id';
  return ['RestElement', 'ArrayPattern', 'AssignmentPattern'].includes(parent.type) && key !== 'right';
}
