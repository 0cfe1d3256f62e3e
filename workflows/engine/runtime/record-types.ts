/**
 * What a step records and what a plugin call returns: the step record (status, items, error, the call's
 * resolved config and attempts), the plugin's result, and the log lines a step writes. Plain data, so every
 * value can cross Temporal's payload boundary. Types only (and the failure details' keys); part of the
 * runtime's type vocabulary (./types.ts).
 */
import type { Item } from '../graph/walker';

export interface StepError {
  message: string;
  code: string;
  retryable?: boolean;
  /** What the step attached to its failure (the `fail` plugin's `metadata`). */
  details?: Record<string, unknown>;
}

export type StepStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';

export interface StepRecord {
  stepId: string;
  status: StepStatus;
  /** Run number of the latest run (steps in loops run several times). */
  run: number;
  items: Item[];
  /** `items[0] ?? {}`. */
  outputs: Item;
  activePorts: string[];
  inputs?: Record<string, unknown>;
  error?: StepError;
  startedAt?: string;
  completedAt?: string;
  metadata?: { fanOut?: { done: number; total: number; failed: number } } & Record<string, unknown>;
  /** Set on a step a retry did not run: its record is the one of the execution named here (ExecutionInput.reuse). */
  reusedFrom?: string;
  /**
   * The plugin config of this run's (first) call as resolved, every template that reads a secret shown
   * masked (`<redacted>`, the templates' SECRET_MASK): never a secret value. A marker when over its cap (./attempts.ts).
   */
  config?: Record<string, unknown>;
  /** The attempts of this run's plugin calls, when there was more than one (./attempts.ts). */
  attempts?: StepAttempt[];
  /** Attempts not listed in `attempts`, past its cap (./attempts.ts RECORDED_ATTEMPTS_MAX). */
  attemptsOmitted?: number;
}

/**
 * One attempt of a step's plugin call. Attempts the engine ran (a jitter policy, an inline plugin's retries)
 * carry their times and error; earlier attempts Temporal retried by itself are known by number only.
 */
export interface StepAttempt {
  attempt: number;
  status: 'completed' | 'failed';
  /** The call's item, in a fan-out (several calls per run). */
  itemIndex?: number;
  error?: StepError;
  startedAt?: string;
  completedAt?: string;
}

/** What a plugin call returns (inline or activity). `items` wins over `outputs`. */
export interface PluginResult {
  status: 'success' | 'failure' | 'skipped';
  items?: Item[];
  outputs?: Item;
  /** Ports to activate; default `['default']`. Items go to every active port. */
  activePorts?: string[];
  error?: StepError;
  metadata?: Record<string, unknown>;
  /** State to hand to this step's next call (on loop re-entry; every call for an operator's `nodeState` plugin); null clears it. */
  nodeState?: Record<string, unknown> | null;
  /**
   * What an operator's two-phase wait set up with its side effect: the signal the step now waits on, in the
   * workflow. The plugin's data: checked before use (./operator-kinds.ts), never evaluated.
   */
  wait?: { signalName: string | string[]; correlationKey?: string };
  /** The host's attempt that produced this result, when it retried the call itself (Temporal's attempt number). */
  attempt?: number;
  /** Log lines an activity plugin emitted (already scrubbed, metadata included); the workflow records them in order. */
  logs?: Array<{ level: 'debug' | 'info' | 'warn' | 'error'; message: string; metadata?: Record<string, unknown> }>;
  /**
   * What the plugin returned, when its `outputs` or `items` wrap it (a code-exec script's number, string,
   * boolean or array), and only when the call asked (`ActivityCall.returnValue`): a `forEach.reduce`
   * iteration's value, which the accumulator receives as is.
   */
  value?: unknown;
}

/** Key of the failure detail in which a failed activity plugin returns its log lines. */
export const PLUGIN_LOGS_DETAIL = 'pluginLogs';
/** Key, in that same detail, of the host's attempt number that failed (Temporal's attempt). */
export const PLUGIN_ATTEMPT_DETAIL = 'attempt';

export interface LogEntryDraft {
  stepId: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  metadata?: Record<string, unknown>;
  timestamp: string;
}
