/**
 * An operator's trigger plugin is told when its workflow's trigger is
 * activated on an alias and when it is deactivated. The API's registrar
 * (api/workflows/plugin-trigger-registrar.ts) asks for it; the worker runs it
 * as an activity (activities/create-trigger-activities.ts), under the rules of
 * every plugin call: egress policy, secrets of its config resolved there and
 * redacted from what comes back. What both sides exchange, as plain data.
 */

/** One activation or deactivation of one trigger of one alias. */
export interface TriggerLifecycleRequest {
  phase: 'activate' | 'deactivate';
  organizationId: string;
  workflowId: string;
  aliasName: string;
  /** The revision whose trigger step (config, pinned plugin version) this is. */
  revision: number;
  triggerId: string;
  pluginType: string;
  /**
   * The capability the plugin gets: a URL that starts an execution of this workflow's alias with the request
   * as its trigger payload, and nothing else; it stops working when the trigger is deactivated.
   */
  startUrl: string;
  /** Deactivation: what activation returned as `state`. */
  state?: Record<string, unknown>;
}

export interface TriggerLifecycleResult {
  /** Activation: what the plugin keeps for its deactivation (shown with the trigger's runtime metadata). */
  state?: Record<string, unknown>;
}

/** Bytes a trigger's state may have as JSON. */
export const MAX_TRIGGER_STATE_BYTES = 16 * 1024;
