/** Queue lengths flow control keeps to (docs/limits.md): a start that would queue past one is refused (FlowQueueFull). */
export const FLOW_QUEUE_DEFAULTS = {
  /** Queued runs of one key (a concurrency key's `maxQueued` may only lower it). */
  perKey: 1000,
  /** Queued runs of one organization, all keys together. */
  perOrganization: 10_000,
} as const;

/** How often every API process runs the flow sweep (./sweep.ts): due throttled and debounced runs start within about this. */
export const FLOW_SWEEP_INTERVAL_MS = 1000;
