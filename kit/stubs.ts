/**
 * Plugin stubs: a test replaces a plugin (built-in or vendor) with a handler.
 * A stub is also a descriptor, so the validator knows its kind and ports and
 * the engine its execute mode; the engine hands every stubbed step to the
 * kit's host (`RuntimeEffects.hostPlugin`), never to the built-in plugin.
 */
import { TWO_PHASE_WAIT_SETTINGS, findPlugin, type PluginDescriptor, type StepDefinition } from '../workflows/engine';

/**
 * What a stub handler receives for one call (one item in `each` mode, the batch in `all` mode).
 *
 * It is also the step: `id`, `type` and `pluginType` sit beside the call's values, so a handler
 * written as the compatible engine's guide writes them, `async (step, ctx) => …`, works as one
 * written `(ctx) => …`: every handler is called with this object as both of its arguments.
 */
export interface StubContext {
  /** The step's id (as `stepId`): the first argument of a `(step, ctx)` handler is this object too. */
  id: string;
  /** The step's type and plugin type, as normalized (`module`, `decider`…; `acme-deploy`). */
  type: StepDefinition['type'];
  pluginType: string;
  stepId: string;
  /** The step as defined (templates unresolved). */
  step: StepDefinition;
  /** The step's declared inputs resolved (with `forEach`, the element merged in), a fresh copy per call. */
  inputs: Record<string, unknown>;
  /** Config with templates resolved, secrets included. */
  config: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
  item?: Record<string, unknown>;
  itemIndex?: number;
  variables: Record<string, unknown>;
  /** A stub with `nodeState`: the `state` its step's previous call in the run returned (absent on the first). */
  state?: Record<string, unknown>;
  /** 1 on the first attempt; retries (the step's retry policy) count up. */
  attempt: number;
  executionId: string;
  workflowId: string;
}

/** A step result, as the compatible engine's plugins return it (`status` says it is one). */
export interface StubResult {
  status: 'success' | 'failure' | 'skipped';
  outputs?: Record<string, unknown>;
  /** The step's items (wins over `outputs`, whose default is `items[0]`). */
  items?: Array<Record<string, unknown>>;
  activePorts?: string[];
  /** A two-phase wait's stub: the signal its step then waits on (answered by the run's `signals`). */
  wait?: { signalName: string | string[]; correlationKey?: string };
  /** A stub with `nodeState`: the state its step's next call gets (`null` clears it; absent keeps it). */
  state?: Record<string, unknown> | null;
  error?: { message: string; code?: string; retryable?: boolean };
  /** Accepted and not kept (no expression reads a step's metadata). */
  metadata?: Record<string, unknown>;
}

/**
 * What a handler returns, read in this order:
 * - an object whose `status` is `success`, `failure` or `skipped` is a `StubResult`, taken as is;
 * - for a stub of `kind: 'decider'`, an object with `activePorts` (and `outputs` at most) is a success routed so;
 * - for a stub with `twoPhaseWait`, an object with `wait` (and `outputs` at most) is a success that then waits;
 * - for a stub with `nodeState`, an object with `state` (and `outputs`, `items`, `wait` at most) is a success keeping it;
 * - an object whose only key is `outputs` (an object) is the compatible engine's result shape: a success with those outputs;
 * - any other object is a success with that object as the outputs (`{ statusCode: 200 }`, `{ status: 200, body }`);
 * - nothing is a success with no outputs.
 * A throw is a failure (retried under the step's retry policy).
 * So a step whose outputs really are `{ outputs: … }` and nothing else returns `{ status: 'success', outputs: { outputs: … } }`.
 */
export type StubReturn = StubResult | Record<string, unknown> | void;

/** Called as `handler(ctx, ctx)`: write it `(ctx) => …` or, as the compatible engine's guide does, `(step, ctx) => …`. */
export type StubHandler = (ctx: StubContext, sameCtx: StubContext) => StubReturn | Promise<StubReturn>;

export interface StubSpec {
  handler?: StubHandler;
  executeMode?: 'each' | 'all';
  kind?: 'module' | 'decider' | 'trigger';
  /** A two-phase wait (docs/plugins.md): the handler returns `{ outputs, wait }`, then the step waits on that signal. */
  twoPhaseWait?: boolean;
  /** Per-step state (docs/plugins.md): the handler gets `ctx.state` and returns the next `state`; one call per activation (`all`). */
  nodeState?: boolean;
  ports?: { inputs?: Array<{ name: string; reentry?: boolean }>; outputs?: Array<{ name: string }> };
}

export type Stubs = Record<string, StubHandler | StubSpec>;

export interface ResolvedStub {
  descriptor: PluginDescriptor;
  handler?: StubHandler;
}

export function specOf(stub: StubHandler | StubSpec): StubSpec {
  return typeof stub === 'function' ? { handler: stub } : stub;
}

/** Each stub with its descriptor: the built-in one of that name with the stub's overrides, else a new one. */
export function resolveStubs(stubs: Stubs = {}): Map<string, ResolvedStub> {
  const resolved = new Map<string, ResolvedStub>();
  for (const [name, stub] of Object.entries(stubs)) {
    const spec = specOf(stub);
    if (spec.handler !== undefined && typeof spec.handler !== 'function') throw new TypeError(`stub "${name}": handler must be a function`);
    const base = findPlugin(name);
    const kind = spec.kind ?? base?.kind ?? 'module';
    const waits = spec.twoPhaseWait === true;
    const outputPorts = spec.ports?.outputs
      ? ['default', ...spec.ports.outputs.map((port) => port.name)]
      : (base?.outputPorts ?? ['default']);
    const descriptor: PluginDescriptor = {
      name,
      kind,
      description: base?.description ?? `stub of ${name}`,
      executeMode: spec.executeMode ?? base?.executeMode ?? (spec.nodeState === true ? 'all' : 'each'),
      ...(spec.executeMode === undefined && base?.executeModeFrom ? { executeModeFrom: base.executeModeFrom } : {}),
      // Run by the kit's host, never inside the engine.
      inline: false,
      inputPorts: spec.ports?.inputs ? ['default', ...spec.ports.inputs.map((port) => port.name)] : (base?.inputPorts ?? ['default']),
      // A two-phase wait has the `timeout` port and the wait's settings, as an operator's plugin of that kind does.
      outputPorts: waits && !outputPorts.includes('timeout') ? [...outputPorts, 'timeout'] : outputPorts,
      ...(base?.dynamicPorts ? { dynamicPorts: true } : {}),
      configSchema: waits
        ? { ...base?.configSchema, properties: { ...base?.configSchema.properties, ...TWO_PHASE_WAIT_SETTINGS } }
        : (base?.configSchema ?? { properties: {} }),
      ...(waits ? { twoPhaseWait: true } : {}),
      ...(spec.nodeState === true ? { nodeState: true } : {}),
    };
    resolved.set(name, { descriptor, handler: spec.handler });
  }
  return resolved;
}

/** The descriptors stubs add or replace, for the validator. */
export function stubDescriptors(stubs: Stubs | undefined): Record<string, PluginDescriptor> {
  return Object.fromEntries([...resolveStubs(stubs)].map(([name, stub]) => [name, stub.descriptor]));
}
