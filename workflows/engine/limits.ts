/**
 * Publish-time ceilings on a definition. The API passes the operator's
 * values (config/limits.ts); the runtime validates without them, as what it
 * runs was checked when it was published.
 */
import { cronError, minimumIntervalSeconds } from './cron';
import type { StepDefinition } from './definition';
export interface DefinitionLimits {
  maxSteps: number;
  maxConnections: number;
  maxDefinitionBytes: number;
  maxExpressionLength: number;
  /** Shortest interval a cron trigger may fire at. */
  minCronIntervalSeconds: number;
}

/** The environment variable that sets each limit, named in the error so an operator knows what to change. */
export const DEFINITION_LIMIT_SETTINGS: Record<keyof DefinitionLimits, string> = {
  maxSteps: 'WORKFLOW_MAX_STEPS',
  maxConnections: 'WORKFLOW_MAX_CONNECTIONS',
  maxDefinitionBytes: 'WORKFLOW_MAX_DEFINITION_BYTES',
  maxExpressionLength: 'WORKFLOW_MAX_EXPRESSION_LENGTH',
  minCronIntervalSeconds: 'WORKFLOW_MIN_CRON_INTERVAL_SECONDS',
};

/** Why a valid cron trigger's schedule fires too often, if it does. */
export function scheduleTooFrequent(step: StepDefinition, minSeconds: number): string | undefined {
  const schedule =
    step.type === 'trigger' && step.pluginType === 'cron' ? (step.config as { schedule?: unknown } | undefined)?.schedule : undefined;
  if (typeof schedule !== 'string' || cronError(schedule) !== undefined) return undefined;
  const interval = minimumIntervalSeconds(schedule);
  return interval < minSeconds
    ? `fires as often as every ${interval} s; at least ${minSeconds} s apart is required (${DEFINITION_LIMIT_SETTINGS.minCronIntervalSeconds})`
    : undefined;
}

/**
 * Too many steps or connections, found before any other validation work (so a
 * hostile definition costs little; its bytes are bounded by the request body
 * limit until {@link definitionBytesIssue} measures them exactly).
 */
export function sizeIssues(input: Record<string, unknown>, limits: DefinitionLimits): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  const count = (value: unknown) =>
    Array.isArray(value) ? value.length : value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
  const over = (path: string, what: string, actual: number, limit: keyof DefinitionLimits) =>
    issues.push({ path, message: `has ${actual} ${what}; at most ${limits[limit]} are allowed (${DEFINITION_LIMIT_SETTINGS[limit]})` });
  const steps = count(input.steps);
  if (steps > limits.maxSteps) over('/steps', 'steps', steps, 'maxSteps');
  const connections = count(input.connections);
  if (connections > limits.maxConnections) over('/connections', 'connections', connections, 'maxConnections');
  return issues;
}

/**
 * A definition over its size, measured on the JSON text that is stored (the
 * normalized definition): the API serializes it once, to hash and store it,
 * and passes that text here instead of serializing it a second time.
 */
export function definitionBytesIssue(json: string, limits: DefinitionLimits): { path: string; message: string } | undefined {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most definitions are known to fit without
  // counting (counting is a pass over the whole text, on every publish).
  if (json.length * 3 <= limits.maxDefinitionBytes) return undefined;
  const bytes = Buffer.byteLength(json);
  return bytes > limits.maxDefinitionBytes
    ? {
        path: '',
        message: `is ${bytes} bytes as JSON; at most ${limits.maxDefinitionBytes} are allowed (${DEFINITION_LIMIT_SETTINGS.maxDefinitionBytes})`,
      }
    : undefined;
}

/**
 * What one run may do. Carried in the execution's input (the service fills it
 * from its configuration; a child inherits its parent's), so the workflow,
 * which cannot read configuration, enforces the operator's values.
 */
export interface RunLimits {
  /** Nesting of sub-workflows below a run started otherwise (the root is depth 0). */
  maxSubWorkflowDepth: number;
  /** Sub-workflows one execution may start. */
  maxChildrenPerExecution: number;
  /**
   * Executions below one root, at every depth together (the tree budget): counted in PostgreSQL when a
   * child is recorded (executions/record-run.ts), as the per-execution limits alone let a tree grow
   * exponentially. Absent in inputs of runs started before the budget (their trees keep no count).
   */
  maxExecutionsPerTree?: number;
  /** Elements one `forEach` may iterate. */
  maxForEachElements: number;
  /** Ceiling on `maxConcurrency` / `maxParallelism`. */
  maxParallelism: number;
  /** Plugin activities one execution runs at the same time; the others wait their turn. */
  maxActivitiesInFlight: number;
  /** UTF-8 bytes of one log message kept; longer ones are cut, saying so. */
  maxLogMessageBytes: number;
  /** UTF-8 bytes of one step's output items as JSON. */
  maxStepOutputBytes: number;
  /**
   * A light-capable step (a short network call) whose timeout is at most this runs as a Temporal local
   * activity, inside the workflow task, instead of a task of its own: no dispatch hop. 0: none does.
   * Absent in inputs of runs started before light steps (they keep running their steps as activities).
   */
  lightStepMaxTimeoutMs?: number;
  /**
   * How a step without a `timeout` of its own compares with `lightStepMaxTimeoutMs`: `call-timeout`, by the
   * plugin's own bound on its call (http-request: its config `timeout`, default 30 s), so a default step is
   * light. Absent in inputs of runs started before (such a step compared by the 5-minute default: never light).
   * Read only through ./engine-rules (`light-step-by-call-timeout`), which runs of rules 4 and later follow anyway;
   * still written, so a worker of an older release reading a new run's input follows it too.
   */
  lightStepRule?: 'call-timeout';
}

/** The limits that are settings (the rule a run follows is the code's, not the operator's). */
type RunLimitSetting = Exclude<keyof RunLimits, 'lightStepRule'>;

/** The environment variable that sets each run limit, named in the errors. */
export const RUN_LIMIT_SETTINGS: Record<RunLimitSetting, string> = {
  maxSubWorkflowDepth: 'WORKFLOW_MAX_SUBWORKFLOW_DEPTH',
  maxChildrenPerExecution: 'WORKFLOW_MAX_CHILDREN_PER_EXECUTION',
  maxExecutionsPerTree: 'WORKFLOW_MAX_EXECUTIONS_PER_TREE',
  maxForEachElements: 'WORKFLOW_MAX_FOREACH_ELEMENTS',
  maxParallelism: 'WORKFLOW_MAX_PARALLELISM',
  maxActivitiesInFlight: 'WORKFLOW_MAX_ACTIVITIES_IN_FLIGHT',
  maxLogMessageBytes: 'WORKFLOW_MAX_LOG_MESSAGE_BYTES',
  maxStepOutputBytes: 'WORKFLOW_MAX_STEP_OUTPUT_BYTES',
  lightStepMaxTimeoutMs: 'LIGHT_STEP_MAX_TIMEOUT_MS',
};

/** Just the run limits of a larger set of settings (the service's whole limits table), for the execution input. */
export function runLimitsFrom(values: Omit<RunLimits, 'lightStepRule'>): RunLimits {
  const settings = Object.fromEntries(Object.keys(RUN_LIMIT_SETTINGS).map((key) => [key, values[key as RunLimitSetting]]));
  return { ...(settings as unknown as RunLimits), lightStepRule: 'call-timeout' };
}

const UNLIMITED: RunLimits = {
  maxSubWorkflowDepth: Infinity,
  maxChildrenPerExecution: Infinity,
  maxExecutionsPerTree: Infinity,
  maxForEachElements: Infinity,
  maxParallelism: Infinity,
  maxActivitiesInFlight: Infinity,
  maxLogMessageBytes: Infinity,
  maxStepOutputBytes: Infinity,
  // Not a ceiling: runs from before limits travelled in inputs ran every effectful step as an activity.
  lightStepMaxTimeoutMs: 0,
};

/** The limits a run enforces: its input's; none for runs started before limits travelled in inputs (as they were). */
export function runLimitsOf(input: { limits?: RunLimits }): RunLimits {
  return input.limits ?? UNLIMITED;
}
