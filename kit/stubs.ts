/**
 * Plugin stubs: a test replaces a plugin (built-in or vendor) with a handler.
 * A stub is also a descriptor, so the validator knows its kind and ports and
 * the engine its execute mode; the engine hands every stubbed step to the
 * kit's host (`RuntimeEffects.hostPlugin`), never to the built-in plugin.
 */
import { findPlugin, type PluginDescriptor, type StepDefinition } from '../workflows/engine';

/** What a stub handler receives for one call (one item in `each` mode, the batch in `all` mode). */
export interface StubContext {
  stepId: string;
  step: StepDefinition;
  /** The step's declared inputs resolved (with `forEach`, the element merged in), a fresh copy per call. */
  inputs: Record<string, unknown>;
  /** Config with templates resolved, secrets included. */
  config: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
  item?: Record<string, unknown>;
  itemIndex?: number;
  variables: Record<string, unknown>;
  /** 1 on the first attempt; retries (the step's retry policy) count up. */
  attempt: number;
  executionId: string;
  workflowId: string;
}

export interface StubResult {
  status: 'success' | 'failure';
  outputs?: Record<string, unknown>;
  items?: Array<Record<string, unknown>>;
  activePorts?: string[];
  error?: { message: string; code?: string; retryable?: boolean };
}

/** A plain object is a success with those outputs; a `StubResult` (it has `status`) is taken as is; a throw is a failure. */
export type StubHandler = (
  ctx: StubContext,
) => StubResult | Record<string, unknown> | void | Promise<StubResult | Record<string, unknown> | void>;

export interface StubSpec {
  handler?: StubHandler;
  executeMode?: 'each' | 'all';
  kind?: 'module' | 'decider' | 'trigger';
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
    const descriptor: PluginDescriptor = {
      name,
      kind,
      description: base?.description ?? `stub of ${name}`,
      executeMode: spec.executeMode ?? base?.executeMode ?? 'each',
      ...(spec.executeMode === undefined && base?.executeModeFrom ? { executeModeFrom: base.executeModeFrom } : {}),
      // Run by the kit's host, never inside the engine.
      inline: false,
      inputPorts: spec.ports?.inputs ? ['default', ...spec.ports.inputs.map((port) => port.name)] : (base?.inputPorts ?? ['default']),
      outputPorts: spec.ports?.outputs ? ['default', ...spec.ports.outputs.map((port) => port.name)] : (base?.outputPorts ?? ['default']),
      ...(base?.dynamicPorts ? { dynamicPorts: true } : {}),
      configSchema: base?.configSchema ?? { properties: {} },
    };
    resolved.set(name, { descriptor, handler: spec.handler });
  }
  return resolved;
}

/** The descriptors stubs add or replace, for the validator. */
export function stubDescriptors(stubs: Stubs | undefined): Record<string, PluginDescriptor> {
  return Object.fromEntries([...resolveStubs(stubs)].map(([name, stub]) => [name, stub.descriptor]));
}
