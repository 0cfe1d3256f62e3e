/** The contract of plugins that run inside the workflow (no activity round trip). */
import type { EvaluationScope } from '../evaluate';
import type { StepDefinition } from '../definition';
import type { PluginDescriptor } from '../plugins/descriptor';
import type { Item, PluginResult, RuntimeContext, RuntimeEffects } from '../runtime/types';

export interface InlineCall {
  step: StepDefinition;
  /** Config with templates resolved (deciders' `expression` stays raw). */
  config: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** The batch (`all` mode) or the one item (`each` mode, as a one-element batch). */
  items: Item[];
  item?: Item;
  scope: EvaluationScope;
  ctx: RuntimeContext;
  effects: RuntimeEffects;
  /** Whether the step has an outgoing edge from this port. */
  hasPortEdge: (port: string) => boolean;
  /** True when this run was entered through a back-edge (loop re-entry). */
  reentered: boolean;
}

export type InlineRun = (call: InlineCall) => PluginResult | Promise<PluginResult>;

/** An inline plugin is its descriptor (plain data, served by the API) and its implementation, exported together. */
export interface InlinePlugin {
  descriptor: PluginDescriptor;
  run: InlineRun;
}

/** A failure that is the plugin's business (not retried). */
export function failure(code: string, message: string): PluginResult {
  return { status: 'failure', error: { code, message, retryable: false } };
}
