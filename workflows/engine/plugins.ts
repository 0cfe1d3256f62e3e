/**
 * Descriptors of the generic plugins (engine-reference §0/§4) as plain data:
 * kind, executeMode, ports and config schema. The API validates definitions
 * with them and the workflow bundle reads the same objects, so save-time and
 * run-time knowledge cannot drift. Behaviour is added by the execution issue.
 */
import type { ConfigSchema, PropertySchema } from './config-schema';

export type PluginKind = 'trigger' | 'decider' | 'module';

export interface PluginDescriptor {
  name: string;
  kind: PluginKind;
  description: string;
  /** `each`: one call per item; `all`: one call with the whole batch. */
  executeMode: 'each' | 'all';
  /** A config property that overrides `executeMode`, by its value (`iterateItems: false` → `all`). */
  executeModeFrom?: { property: string; modes: Record<string, 'each' | 'all'> };
  /** Runs inside the workflow (no activity round trip). */
  inline: boolean;
  inputPorts: string[];
  outputPorts: string[];
  /** Output ports named by config (e.g. `case` ports); see `outputPortsOf`. */
  dynamicPorts?: boolean;
  configSchema: ConfigSchema;
}

const str = (description?: string, extra: Partial<PropertySchema> = {}): PropertySchema => ({ type: 'string', description, ...extra });
const bool = (description?: string): PropertySchema => ({ type: 'boolean', description });
const int = (description?: string, minimum?: number): PropertySchema => ({ type: 'integer', description, minimum });
const duration = (description?: string): PropertySchema => ({ type: ['string', 'number'], format: 'duration', description });
const obj = (description?: string): PropertySchema => ({ type: 'object', description });
const onTimeout: PropertySchema = { type: 'string', enum: ['error', 'continue'] };

const descriptors: PluginDescriptor[] = [
  {
    name: 'manual',
    kind: 'trigger',
    description: 'Started from the API or the UI.',
    executeMode: 'each',
    inline: true,
    inputPorts: [],
    outputPorts: ['default'],
    configSchema: { properties: { description: str(), inputs: obj('Run form parameters by name.') } },
  },
  {
    name: 'cron',
    kind: 'trigger',
    description: 'Starts a run on a schedule (a Temporal Schedule).',
    executeMode: 'each',
    inline: true,
    inputPorts: [],
    outputPorts: ['default'],
    configSchema: {
      properties: {
        schedule: str('5/6-field cron or @every macro', { format: 'cron' }),
        timezone: str('IANA zone, default UTC'),
        catchUpMissed: bool(),
      },
      required: ['schedule'],
    },
  },
  {
    name: 'webhook',
    kind: 'trigger',
    description: 'Each request to the minted URL starts or signals a run.',
    executeMode: 'each',
    inline: true,
    inputPorts: [],
    outputPorts: ['default'],
    configSchema: {
      properties: {
        path: str(),
        method: str(undefined, { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'] }),
        mode: str(undefined, { enum: ['start', 'signal'] }),
        signalName: str(),
        correlationKeyPath: str(),
        secret: str(),
        payloadSchema: obj(),
      },
    },
  },
  {
    name: 'conditional',
    kind: 'decider',
    description: 'Routes by the truthiness of an expression.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['true', 'false'],
    dynamicPorts: true,
    configSchema: {
      properties: { expression: { type: ['string', 'boolean'], format: 'expression' }, truePort: str(), falsePort: str() },
      required: ['expression'],
    },
  },
  {
    name: 'case',
    kind: 'decider',
    description: 'Routes to the first case whose value matches (===).',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    dynamicPorts: true,
    configSchema: {
      properties: {
        expression: { type: 'string', format: 'expression' },
        cases: {
          type: 'array',
          items: { type: 'object', properties: { port: str(undefined, { minLength: 1 }), match: { type: 'any' } }, required: ['port'] },
        },
        default: str(),
      },
      required: ['expression', 'cases'],
    },
  },
  {
    name: 'log',
    kind: 'module',
    description: 'Writes a log entry; never fails.',
    executeMode: 'all',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: {
      properties: { level: str(undefined, { enum: ['debug', 'info', 'warn', 'error'] }), message: { type: 'any' }, metadata: obj() },
      required: ['message'],
    },
  },
  {
    name: 'no-op',
    kind: 'module',
    description: 'Echoes its inputs.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: { properties: {} },
  },
  {
    name: 'fail',
    kind: 'module',
    description: 'Fails on purpose with a code.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: { properties: { message: str(), code: str(), metadata: obj() }, required: ['message'] },
  },
  {
    name: 'delay',
    kind: 'module',
    description: 'Durable timer.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: { properties: { duration: duration('up to 30 days') }, required: ['duration'] },
  },
  {
    name: 'set-variable',
    kind: 'module',
    description: 'Writes workflow variables.',
    executeMode: 'all',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: { properties: { path: str(), value: { type: 'any' }, assignments: obj() } },
  },
  {
    name: 'signal-wait',
    kind: 'module',
    description: 'Parks the run until a signal arrives or the timeout fires.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default', 'timeout'],
    configSchema: {
      properties: {
        signalName: { type: ['string', 'array'], items: str() },
        correlationKey: str(),
        timeout: duration(),
        onTimeout,
        defaultValue: { type: 'any' },
      },
      required: ['signalName'],
    },
  },
  {
    name: 'webhook-wait',
    kind: 'module',
    description: 'Issues a one-time callback URL, then waits for a request to it.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default', 'timeout'],
    configSchema: { properties: { timeout: duration(), onTimeout, urlPrefix: str(), correlationKey: str() } },
  },
  {
    name: 'split-in-batches',
    kind: 'module',
    description: 'Sends batches around a loop, then everything to done.',
    executeMode: 'all',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['loop', 'done'],
    configSchema: { properties: { batchSize: int(undefined, 1), reset: bool(), arrayPath: str() } },
  },
  {
    name: 'paginated-fetch',
    kind: 'module',
    description: 'Fetches pages, accumulating or streaming (one fetch per activation, whatever the batch).',
    executeMode: 'all',
    inline: false,
    inputPorts: ['default', 'callback'],
    outputPorts: ['loop', 'done'],
    configSchema: {
      properties: {
        url: str(),
        method: str(undefined, { enum: ['GET', 'POST'] }),
        mode: str(undefined, { enum: ['accumulate', 'stream'] }),
        paginationStrategy: str(undefined, { enum: ['page', 'offset', 'cursor'] }),
        pageParam: str(),
        limitParam: str(),
        limit: int(undefined, 1),
        cursorRequestParam: str(),
        cursorResponsePath: str(),
        dataPath: str(),
        hasMorePath: str(),
        totalPath: str(),
        stopWhenShortPage: bool(),
        maxPages: int(undefined, 1),
        headers: obj(),
      },
      required: ['url'],
    },
  },
  {
    name: 'sub-workflow',
    kind: 'module',
    description: 'Runs a child execution per item (iterateItems: false: one child with inputs.items).',
    executeMode: 'each',
    inline: true,
    executeModeFrom: { property: 'iterateItems', modes: { true: 'each', false: 'all' } },
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: {
      properties: {
        workflowId: str(),
        alias: str(),
        revision: int(undefined, 1),
        waitForCompletion: bool(),
        inheritCorrelationKey: bool(),
        iterateItems: bool(),
        maxParallelism: int(undefined, 1),
        inputs: obj(),
      },
      required: ['workflowId'],
    },
  },
  {
    name: 'http-request',
    kind: 'module',
    description: 'HTTP call.',
    executeMode: 'each',
    inline: false,
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: {
      properties: {
        url: str(),
        method: str(undefined, { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] }),
        headers: obj(),
        body: { type: 'any' },
        timeout: duration(),
        followRedirects: bool(),
        verifySsl: bool(),
      },
      required: ['url'],
    },
  },
  {
    name: 'code-exec',
    kind: 'module',
    description: 'JavaScript in a sandbox with memory and time limits.',
    executeMode: 'all',
    inline: false,
    executeModeFrom: { property: 'mode', modes: { each: 'each', all: 'all' } },
    inputPorts: ['default'],
    outputPorts: ['default'],
    configSchema: {
      properties: {
        code: str(undefined, { minLength: 1 }),
        language: str(undefined, { enum: ['js', 'ts', 'javascript', 'typescript'] }),
        mode: str(undefined, { enum: ['each', 'all'] }),
        network: { type: 'object', properties: { allowedHosts: { type: 'array', items: str() } } },
        libraries: { type: 'array', items: str() },
        executionConfig: obj(),
        runtime: obj(),
      },
      required: ['code'],
    },
  },
];

export const PLUGINS: Readonly<Record<string, PluginDescriptor>> = Object.freeze(Object.fromEntries(descriptors.map((d) => [d.name, d])));

/** The execute mode a step's config selects (a mode property), else the plugin's own. */
export function executeModeOf(plugin: PluginDescriptor, config: Record<string, unknown>): 'each' | 'all' {
  const from = plugin.executeModeFrom;
  const value = from ? config[from.property] : undefined;
  return (typeof value === 'string' || typeof value === 'boolean') && Object.hasOwn(from!.modes, String(value))
    ? from!.modes[String(value)]
    : plugin.executeMode;
}

export function findPlugin(name: string): PluginDescriptor | undefined {
  return Object.prototype.hasOwnProperty.call(PLUGINS, name) ? PLUGINS[name] : undefined;
}

/** Output ports a step can wire, given its plugin and config (deciders rename or add ports). */
export function outputPortsOf(plugin: PluginDescriptor, config: Record<string, unknown>): string[] {
  const ports = new Set(['default', ...plugin.outputPorts]);
  if (plugin.name === 'conditional') {
    if (typeof config.truePort === 'string') ports.add(config.truePort);
    if (typeof config.falsePort === 'string') ports.add(config.falsePort);
  }
  if (plugin.name === 'case') {
    if (Array.isArray(config.cases)) {
      for (const c of config.cases as unknown[]) {
        const port = c !== null && typeof c === 'object' ? (c as Record<string, unknown>).port : undefined;
        if (typeof port === 'string') ports.add(port);
      }
    }
    if (typeof config.default === 'string') ports.add(config.default);
  }
  return [...ports];
}
