/**
 * What a revision records of each operator plugin its steps use (under the
 * definition's `pinnedPlugins`, written by the validator, never by clients):
 * the version it was validated against, and the execute mode the workflow
 * needs, since the sandbox has no live registry of operator plugins. The
 * worker runs a pinned step only with a compatible version of the plugin.
 */
import type { WorkflowDefinition } from '../definition';
import type { PluginDescriptor } from './descriptor';
import type { PluginCatalog } from './registry';

export const PINNED_PLUGINS_KEY = 'pinnedPlugins';

/**
 * A pin. `kind` (a decider or a trigger; absent: a module), `nodeState` and `twoPhaseWait` are written only when
 * the plugin declares them, so a module's pin is what it always was: the workflow needs them to route a decider's
 * items, hand a step its state and park a two-phase wait.
 */
export type PinnedPlugin = Pick<PluginDescriptor, 'executeMode' | 'executeModeFrom'> & {
  version: string;
  kind?: 'decider' | 'trigger';
  nodeState?: true;
  twoPhaseWait?: true;
};

/** Records in `definition` the operator plugins its steps use (and drops whatever a client sent under that key). */
export function pinPlugins(definition: WorkflowDefinition, plugins: PluginCatalog | undefined): void {
  const pinned: Record<string, PinnedPlugin> = {};
  if (plugins !== undefined) {
    for (const step of Object.values(definition.steps)) {
      const name = step.pluginType;
      if (typeof name !== 'string' || !Object.hasOwn(plugins, name)) continue;
      const { version, executeMode, executeModeFrom, kind, nodeState, twoPhaseWait } = plugins[name];
      pinned[name] = {
        version: version ?? '0.0.0',
        executeMode,
        ...(executeModeFrom ? { executeModeFrom } : {}),
        ...(kind !== 'module' ? { kind } : {}),
        ...(nodeState === true ? { nodeState: true as const } : {}),
        ...(twoPhaseWait === true ? { twoPhaseWait: true as const } : {}),
      };
    }
  }
  // A client's own value is dropped (only when there is one: `delete` makes V8 reshape the object, and it is serialized next).
  if (Object.hasOwn(definition, PINNED_PLUGINS_KEY)) delete definition[PINNED_PLUGINS_KEY];
  if (Object.keys(pinned).length > 0) definition[PINNED_PLUGINS_KEY] = pinned;
}

/** The pin of an operator plugin in a definition, if its steps use one of that name. */
export function pinnedPluginOf(definition: WorkflowDefinition, name: string | undefined): PinnedPlugin | undefined {
  const pinned = definition[PINNED_PLUGINS_KEY];
  if (name === undefined || pinned === null || typeof pinned !== 'object' || !Object.hasOwn(pinned, name)) return undefined;
  return (pinned as Record<string, PinnedPlugin>)[name];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isSemver(version: string): boolean {
  return SEMVER.test(version);
}

/**
 * Whether a plugin at `available` can run steps validated against `pinned`
 * (semantic versioning): the same major version (for 0.x the same minor) and
 * not older. A pre-release matches only itself.
 */
export function isCompatibleVersion(pinned: string, available: string): boolean {
  const want = SEMVER.exec(pinned);
  const have = SEMVER.exec(available);
  if (!want || !have) return false;
  if (want[4] !== undefined || have[4] !== undefined) return pinned === available;
  const [wMajor, wMinor, wPatch] = want.slice(1, 4).map(Number);
  const [hMajor, hMinor, hPatch] = have.slice(1, 4).map(Number);
  if (wMajor !== hMajor || (wMajor === 0 && wMinor !== hMinor)) return false;
  return hMinor > wMinor || (hMinor === wMinor && hPatch >= wPatch);
}
