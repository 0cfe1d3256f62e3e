/** What an effectful plugin receives (its call, with secrets already resolved, and the worker's policies), and what it is. */
import type { ActivityCall, PluginDescriptor, PluginResult } from '../../workflows/engine';
import type { CodeExecPool } from './code-exec-pool';
import type { EgressPolicy } from '../egress/policy';

export interface PluginContext {
  call: ActivityCall;
  /** Config with every template resolved, secrets included. Never returned or logged as is. */
  config: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** Per script property (code-exec `code`), its templates' texts, secrets included: bound as values, never pasted. Never returned or logged. */
  bound?: Record<string, string[]>;
  /** The secrets the step's templates read, by name (what `config` was resolved with). */
  secrets?: Readonly<Record<string, string>>;
  /** Aborted when Temporal cancels the activity. */
  signal: AbortSignal;
  egress: EgressPolicy;
  /** Ceiling on paginated-fetch `maxPages` (`WORKFLOW_MAX_PAGES`; unset: no ceiling beyond the plugin's own default). */
  maxPages?: number;
  /** The worker's code-exec threads (unset: the process's default pool). */
  codeExecPool?: CodeExecPool;
  /** Log lines the plugin emits (scrubbed and persisted by the caller). */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string, metadata?: Record<string, unknown>) => void;
}

export type PluginRun = (context: PluginContext) => Promise<PluginResult>;

/** An effectful plugin: the implementation of one engine descriptor (keyed by the descriptor object itself). */
export interface EffectfulPlugin {
  descriptor: PluginDescriptor;
  run: PluginRun;
}
