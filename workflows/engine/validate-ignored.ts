/**
 * Publish warnings for keys the engine accepts (definitions written for the
 * compatible engine must save unchanged) but that cannot have an effect here.
 * Each names the key's path, so a migrating author learns at publish, not
 * from a run that behaves differently than they were told.
 *
 * - A step `timeout` or `metadata.executionTimeoutMs` bounds an activity; a
 *   step whose plugin runs inside the workflow (waits, set-variable, log, …)
 *   or that runs no plugin (triggers, passthrough) has none. Waits take their
 *   timeout in `config.timeout`.
 * - `webhook-wait` `correlationKey`: the callback URL carries its own
 *   one-time token, so there is nothing to correlate.
 * - `webhook` `path`: webhook URLs end in a token minted at activation.
 * - `code-exec` `executionConfig` / `runtime` (deprecated upstream): the
 *   sandbox limits are the operator's.
 * - `forEach.reduce` with `parallel: true`: reduce runs only sequentially.
 */
import type { DefinitionWarning, StepDefinition, WorkflowDefinition } from './definition';
import { isObject, type StepSource } from './normalize';
import { fieldPath, stepPlugin } from './validate-step';

export const KEY_IGNORED = 'DEFINITION_KEY_IGNORED';

/**
 * The fields the engine reads, by place (camelCase; the snake_case spelling
 * is accepted too). Any other key is kept as sent but warned about, so a typo
 * or a feature this engine lacks never passes silently. Step `metadata`,
 * top-level `metadata` and `variables`/`inputs` entries are annotations and
 * are not checked.
 */
export const ACCEPTED_FIELDS = {
  top: [
    'name',
    'key',
    'description',
    'path',
    'nrn',
    'metadata',
    'semanticVersion',
    'releaseNotes',
    'inputs',
    'variables',
    'outputs',
    'secrets',
    'steps',
    'connections',
    'triggers',
    'concurrency',
    'throttle',
    'debounce',
  ],
  step: [
    'id',
    'type',
    'pluginType',
    'name',
    'description',
    'config',
    'inputs',
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
  ],
  errorHandling: ['retryPolicy', 'fallbackStep', 'continueOnError'],
  retryPolicy: ['maxRetries', 'maxAttempts', 'backoff', 'backoffStrategy', 'initialInterval', 'maxInterval', 'jitter'],
  forEach: ['expression', 'itemVariable', 'indexVariable', 'parallel', 'maxConcurrency', 'reduce', 'spreadItem'],
  loop: ['forEach', 'while', 'maxIterations', 'itemName', 'indexName'],
  /** Config keys every plugin step may carry besides its schema's (read by the step runner). */
  anyConfig: ['maxParallelism'],
} as const;

type Place = keyof typeof ACCEPTED_FIELDS;
/** The same lists as sets: every key of every step of every publish is looked up here. */
const ACCEPTED_SETS = {} as Record<Place, ReadonlySet<string>>;
for (const place of Object.keys(ACCEPTED_FIELDS) as Place[]) ACCEPTED_SETS[place] = new Set<string>(ACCEPTED_FIELDS[place]);
const accepted = (place: Place, key: string) => ACCEPTED_SETS[place].has(key);

type Warn = (path: string, message: string) => void;

/** Whether the step's plugin runs as an activity (the only place a step timeout applies). */
export function runsAsActivity(step: StepDefinition): boolean {
  if (step.type === 'trigger' || step.type === 'passthrough') return false;
  const plugin = stepPlugin(step);
  return plugin !== undefined && !plugin.inline;
}

export function ignoredKeyWarnings(
  def: WorkflowDefinition,
  sources: Map<string, StepSource>,
  topPath: (key: string) => string,
): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  const warn: Warn = (path, message) => warnings.push({ code: KEY_IGNORED, path, message });
  for (const key of Object.keys(def)) {
    if (key === 'id') warn(topPath(key), 'id is not used: the server assigns the workflow id (wf_…); send key for a client key');
    else if (!accepted('top', key)) warn(topPath(key), `${key} is not a definition field; it has no effect`);
  }
  for (const [id, source] of sources) {
    const step = def.steps[id];
    unknownStepKeys(step, source, warn);
    const timeoutGiven = step.timeout !== undefined;
    const executionTimeoutGiven = isObject(step.metadata) && step.metadata.executionTimeoutMs !== undefined;
    if ((timeoutGiven || executionTimeoutGiven) && !runsAsActivity(step)) {
      const why = `has no effect on step "${id}": ${whereOf(step)} runs inside the workflow, not as an activity`;
      if (timeoutGiven) warn(fieldPath(source, 'timeout'), `timeout ${why} (waits take config.timeout)`);
      if (executionTimeoutGiven) warn(fieldPath(source, 'metadata', 'executionTimeoutMs'), `metadata.executionTimeoutMs ${why}`);
    }
    if (isObject(step.forEach) && step.forEach.parallel === true && step.forEach.reduce !== undefined)
      warn(
        fieldPath(source, 'forEach', 'reduce'),
        `forEach.reduce has no effect on step "${id}": reduce runs only sequentially, and this forEach is parallel (drop parallel: true to reduce)`,
      );
    const retry = isObject(step.errorHandling) ? step.errorHandling.retryPolicy : undefined;
    if (retry !== undefined && (step.type === 'trigger' || step.type === 'passthrough'))
      warn(
        fieldPath(source, 'errorHandling', 'retryPolicy'),
        `retryPolicy has no effect on step "${id}": ${whereOf(step)} calls no plugin`,
      );
    if (step.pluginType === 'code-exec' && isObject(step.config)) {
      for (const key of ['executionConfig', 'runtime'] as const)
        if (step.config[key] !== undefined)
          warn(
            fieldPath(source, 'config', key),
            `${key} (deprecated) has no effect: code-exec limits are fixed by the operator; its deadline follows the step timeout`,
          );
    }
    if (step.pluginType === 'webhook' && isObject(step.config) && step.config.path !== undefined)
      warn(
        fieldPath(source, 'config', 'path'),
        'path has no effect on a webhook trigger: its URL ends in an opaque token minted at activation (read it from the alias triggerStates)',
      );
    if (step.pluginType === 'webhook-wait' && isObject(step.config) && step.config.correlationKey !== undefined)
      warn(
        fieldPath(source, 'config', 'correlationKey'),
        'correlationKey has no effect on webhook-wait: its callback URL carries its own one-time token',
      );
  }
  return warnings;
}

/** How a warning names what runs a step (built only when a warning needs it: this runs for every step of every publish). */
function whereOf(step: StepDefinition): string {
  return step.pluginType ? `plugin ${step.pluginType}` : `a step of type ${step.type}`;
}

/** Keys of a step, its error handling, retry policy, forEach, loop and plugin config that the engine does not read. */
function unknownStepKeys(step: StepDefinition, source: StepSource, warn: Warn): void {
  unknownKeys('step', step, [], source, warn);
  unknownKeys('errorHandling', step.errorHandling, ['errorHandling'], source, warn);
  if (isObject(step.errorHandling))
    unknownKeys('retryPolicy', step.errorHandling.retryPolicy, ['errorHandling', 'retryPolicy'], source, warn);
  unknownKeys('forEach', step.forEach, ['forEach'], source, warn);
  unknownKeys('loop', step.loop, ['loop'], source, warn);
  const plugin = stepPlugin(step);
  if (plugin && isObject(step.config)) {
    for (const key of Object.keys(step.config)) {
      if (!Object.hasOwn(plugin.configSchema.properties, key) && !accepted('anyConfig', key))
        warn(fieldPath(source, 'config', key), `${key} is not a config key of plugin ${plugin.name}; it has no effect`);
    }
  }
}

/** Warns about each key of `value` (an object at `at` inside the step) that `place` does not accept. */
function unknownKeys(place: Place, value: unknown, at: string[], source: StepSource, warn: Warn): void {
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (accepted(place, key)) continue;
    const path = at.length === 0 ? fieldPath(source, key) : fieldPath(source, at[0], ...at.slice(1), key);
    const spelled = at.length === 0 ? (source.keys?.get(key) ?? key) : key;
    warn(path, `${[...at, spelled].join('.')} is not a step field; it has no effect`);
  }
}
