/**
 * Normalization: both key spellings become camelCase, steps given as an array
 * become a map keyed by id, `dependsOn` becomes connections (deduplicated
 * against explicit ones), and triggers are rebuilt from trigger steps (a
 * client `triggers` value is discarded). Records where each part came from so
 * validation can name the offending field of the document the client sent.
 */
import {
  DEFAULT_PLUGIN_OF_TYPE,
  type ConnectionDefinition,
  type DefinitionIssue,
  type StepDefinition,
  type TriggerDefinition,
  type WorkflowDefinition,
} from './definition';
import { findPlugin } from './plugins';
import { join } from './pointer';
import { readSettingsFromInputs, type SettingsFromInputs } from './settings-from-inputs';

export type Json = Record<string, unknown>;

export interface StepSource {
  /** Pointer of the step in the input (`/steps/<id>` or `/steps/<index>`). */
  pointer: string;
  /** camelCase key → key as sent, for renamed keys only (absent when none was renamed). */
  keys?: Map<string, string>;
  /** Whether the step object carried its own `id` field. */
  hasId: boolean;
  /** Plugin settings read from the step's `inputs:` map (./settings-from-inputs.ts), when it names any. */
  settings?: SettingsFromInputs;
}

export interface NormalizeResult {
  definition: WorkflowDefinition;
  issues: DefinitionIssue[];
  /** Pointer of each top-level field as sent. */
  topKeys: Map<string, string>;
  steps: Map<string, StepSource>;
  /** Where each normalized connection came from: an explicit entry, or a `dependsOn` item. */
  connections: Array<{ pointer: string; fromDependsOn: boolean }>;
  /** Whether a client `triggers` value was discarded. */
  discardedTriggers: boolean;
}

export const camelCase = (key: string): string =>
  key.includes('_') ? key.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Own-property write that is safe for keys such as `__proto__`. */
export function setOwn(target: Json, key: string, value: unknown): void {
  // Only `__proto__` is special on assignment; defineProperty elsewhere would cost objects their fast shape.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function hasOwn(target: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

/**
 * Shallow camelCase of keys; when both spellings are present the camelCase one
 * wins. `keys` records renamed keys only (camelCase → as sent).
 */
export function camelKeys(input: Json, keys?: Map<string, string>): Json {
  if (!hasSnakeKey(input)) return shallowCopy(input);
  const out: Json = {};
  for (const key of Object.keys(input)) {
    const camel = camelCase(key);
    if (camel !== key) {
      if (hasOwn(input, camel)) continue;
      keys?.set(camel, key);
    }
    setOwn(out, camel, input[key]);
  }
  return out;
}

/**
 * A shallow copy of a parsed object, made on a fresh literal rather than by
 * spreading: a spread copy shares the parsed object's hidden class, and the
 * keys normalization then adds (`id`, ports…) grow the transition tree that
 * JSON.parse itself follows, which makes later parses and property accesses
 * slow (docs/benchmarks.md, "Figures behind choices in the code").
 * Object.assign would set an own `__proto__` key as the prototype, so
 * such an object is spread (a spread defines it as data); the callers route
 * keys with `_` through `setOwn` already, this keeps the copy safe on its own.
 */
function shallowCopy(input: Json): Json {
  return hasOwn(input, '__proto__') ? { ...input } : Object.assign({}, input);
}

function hasSnakeKey(input: Json): boolean {
  for (const key in input) if (key.includes('_') && hasOwn(input, key)) return true;
  return false;
}

/** Recursive camelCase for structural blocks whose keys are all engine fields (retry policy…). */
function camelDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelDeep);
  if (!isObject(value)) return value;
  const out = camelKeys(value);
  for (const [key, inner] of Object.entries(out)) setOwn(out, key, camelDeep(inner));
  return out;
}

/** Config keys are renamed only when the camelCase form is a property the plugin declares. */
function normalizeConfig(config: Json, plugin: ReturnType<typeof findPlugin>): Json {
  if (!plugin) return config;
  if (!hasSnakeKey(config)) return shallowCopy(config);
  const out: Json = {};
  for (const [key, value] of Object.entries(config)) {
    const camel = camelCase(key);
    const rename = camel !== key && hasOwn(plugin.configSchema.properties, camel) && !hasOwn(config, camel);
    setOwn(out, rename ? camel : key, value);
  }
  return out;
}

function normalizeStep(raw: Json, id: string, source: StepSource): StepDefinition {
  if (hasSnakeKey(raw)) source.keys = new Map();
  const step = camelKeys(raw, source.keys);
  // The plugin the step runs: the one it names, else its type's default (a `wait` runs signal-wait).
  const pluginName =
    typeof step.pluginType === 'string'
      ? step.pluginType
      : typeof step.type === 'string' && hasOwn(DEFAULT_PLUGIN_OF_TYPE, step.type)
        ? DEFAULT_PLUGIN_OF_TYPE[step.type]
        : undefined;
  const plugin = pluginName === undefined ? undefined : findPlugin(pluginName);
  if (isObject(step.config)) step.config = normalizeConfig(step.config, plugin);
  else if (step.config === undefined || step.config === null) step.config = {};
  // Settings written in `inputs:` (the compatible engine's quick-start form) are read as config; triggers and passthrough run no plugin.
  if (plugin && step.type !== 'trigger' && step.type !== 'passthrough' && isObject(step.config) && isObject(step.inputs)) {
    const settings = readSettingsFromInputs(step as StepDefinition, plugin);
    if (settings) source.settings = settings;
  }
  if (isObject(step.errorHandling)) step.errorHandling = camelDeep(step.errorHandling);
  for (const block of ['forEach', 'loop', 'metadata'] as const) {
    if (isObject(step[block])) step[block] = camelKeys(step[block]);
  }
  if (isObject(step.forEach) && isObject(step.forEach.reduce)) step.forEach.reduce = camelKeys(step.forEach.reduce);
  step.id = id;
  return step as StepDefinition;
}

export function normalizeDefinition(input: Json): NormalizeResult {
  const topKeys = new Map<string, string>();
  const doc = camelKeys(input, topKeys);
  const top = (key: string): string => join('', topKeys.get(key) ?? key);
  const state: NormalizeState = {
    issues: [],
    steps: new Map(),
    stepMap: {},
    dependsOn: [],
    connections: [],
    connectionPointers: [],
    seen: new Set(),
  };
  const { issues } = state;

  const stepsBase = top('steps');
  if (Array.isArray(doc.steps)) {
    for (let index = 0; index < doc.steps.length; index += 1) {
      const raw: unknown = doc.steps[index];
      addStep(state, raw, isObject(raw) ? raw.id : undefined, `${stepsBase}/${index}`);
    }
  } else if (isObject(doc.steps)) {
    for (const key of Object.keys(doc.steps)) {
      const raw = doc.steps[key];
      const pointer = join(stepsBase, key);
      if (isObject(raw) && raw.id !== undefined && raw.id !== key) {
        issues.push({ path: join(pointer, 'id'), message: `must equal the map key "${key}"` });
        continue;
      }
      addStep(state, raw, key, pointer);
    }
  } else if (doc.steps !== undefined) {
    issues.push({ path: top('steps'), message: 'must be a map of step id to step, or an array of steps' });
  }

  if (Array.isArray(doc.connections)) {
    const base = top('connections');
    for (let index = 0; index < doc.connections.length; index += 1) {
      const raw: unknown = doc.connections[index];
      const pointer = `${base}/${index}`;
      if (!isObject(raw)) {
        issues.push({ path: pointer, message: 'a connection must be an object' });
        continue;
      }
      const c = camelKeys(raw);
      c.sourcePort ??= 'default';
      c.targetPort ??= 'default';
      c.id ??= `c${index + 1}`;
      addConnection(state, c as ConnectionDefinition, pointer, false);
    }
  } else if (doc.connections !== undefined && doc.connections !== null) {
    issues.push({ path: top('connections'), message: 'must be an array of connections' });
  }
  for (const { id, raw, pointer } of state.dependsOn) {
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list)) {
      issues.push({ path: pointer, message: 'must be a step id or an array of step ids' });
      continue;
    }
    for (let index = 0; index < list.length; index += 1) {
      const from: unknown = list[index];
      if (typeof from !== 'string') issues.push({ path: join(pointer, index), message: 'must be a step id' });
      else
        addConnection(
          state,
          { id: `${from}->${id}`, from, to: id, sourcePort: 'default', targetPort: 'default' },
          typeof raw === 'string' ? pointer : join(pointer, index),
          true,
        );
    }
  }

  const triggers: TriggerDefinition[] = [];
  for (const step of Object.values(state.stepMap)) {
    if (step.type !== 'trigger') continue;
    triggers.push({
      id: step.id,
      pluginType: String(step.pluginType),
      config: isObject(step.config) ? step.config : {},
      ...(typeof step.config.mode === 'string' ? { mode: step.config.mode } : {}),
      ...(typeof step.description === 'string' ? { description: step.description } : {}),
    });
  }

  const discardedTriggers = doc.triggers !== undefined;
  const definition = {
    ...doc,
    path: doc.path ?? '/',
    steps: state.stepMap,
    connections: state.connections,
    triggers,
  } as WorkflowDefinition;
  if (typeof definition.path === 'string') definition.path = normalizeFolderPath(definition.path) ?? definition.path;
  return { definition, issues, topKeys, steps: state.steps, connections: state.connectionPointers, discardedTriggers };
}

/** What normalization accumulates while it walks the steps and connections. */
interface NormalizeState {
  issues: DefinitionIssue[];
  steps: Map<string, StepSource>;
  stepMap: Record<string, StepDefinition>;
  dependsOn: Array<{ id: string; raw: unknown; pointer: string }>;
  connections: ConnectionDefinition[];
  connectionPointers: Array<{ pointer: string; fromDependsOn: boolean }>;
  /** Identities of the connections kept, so `dependsOn` never duplicates an explicit one. */
  seen: Set<string>;
}

function addStep(state: NormalizeState, raw: unknown, id: unknown, pointer: string): void {
  if (!isObject(raw)) return void state.issues.push({ path: pointer, message: 'a step must be an object' });
  if (typeof id !== 'string' || id === '') return void state.issues.push({ path: join(pointer, 'id'), message: 'is required (a step id)' });
  if (state.steps.has(id)) return void state.issues.push({ path: join(pointer, 'id'), message: `duplicate step id "${id}"` });
  const source: StepSource = { pointer, hasId: hasOwn(raw, 'id') };
  state.steps.set(id, source);
  const step = normalizeStep(raw, id, source);
  setOwn(state.stepMap, id, step);
  if (step.dependsOn !== undefined)
    state.dependsOn.push({ id, raw: step.dependsOn, pointer: join(pointer, source.keys?.get('dependsOn') ?? 'dependsOn') });
  delete step.dependsOn;
}

function addConnection(state: NormalizeState, connection: ConnectionDefinition, pointer: string, fromDependsOn: boolean): void {
  const { from, to, sourcePort, targetPort } = connection;
  const condition = connection.condition ?? null;
  // Plain concatenation is enough for string ends (the common case) and much cheaper than JSON.
  const identity =
    typeof from === 'string' &&
    typeof to === 'string' &&
    typeof sourcePort === 'string' &&
    typeof targetPort === 'string' &&
    (condition === null || typeof condition === 'string')
      ? `${from}\u0000${to}\u0000${sourcePort}\u0000${targetPort}\u0000${condition ?? ''}\u0000${condition === null ? 0 : 1}`
      : JSON.stringify([from, to, sourcePort, targetPort, condition]);
  if (state.seen.has(identity)) return;
  state.seen.add(identity);
  state.connections.push(connection);
  state.connectionPointers.push({ pointer, fromDependsOn });
}

/** `a//b/` → `/a/b`; undefined for paths with empty, `.` or `..` segments after trimming. */
export function normalizeFolderPath(path: string): string | undefined {
  const trimmed = path.trim();
  if (!trimmed.startsWith('/')) return undefined;
  const segments = trimmed.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '.' || segment === '..' || hasControlCharacter(segment))) return undefined;
  return '/' + segments.join('/');
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}
