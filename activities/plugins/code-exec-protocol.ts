/**
 * What the code-exec pool (the worker's main thread) and its threads say to
 * each other. Everything here crosses `postMessage`, so it is structured-clone
 * data: no classes, no functions, no handles.
 */
import type { CodeExecSettings } from '../../config/config';
import type { EgressPolicy } from '../egress/policy';

/** The caps one run is held to (the pool's settings without its sizes and shares). */
export type CodeLimits = Omit<CodeExecSettings, 'threads' | 'threadsPerOrganization' | 'queuePerOrganization'>;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** What `log.info(message, metadata)` attaches to its entry: a plain JSON object. */
export type LogMetadata = Record<string, unknown>;

/** One run of a script: its code, the globals it sees, its network and its limits. */
export interface CodeJob {
  code: string;
  /** `inputs`, `$items`, `$item`, `$itemIndex`: plain JSON values. */
  globals: Record<string, unknown>;
  /** The texts of the code's templates, read through two functions the code calls (workflows/engine/script-templates.ts). */
  templates?: BoundTemplates;
  /** Host patterns `fetch` may reach; unset: the sandbox has no `fetch`. */
  allowedHosts?: string[];
  egress: EgressPolicy;
  timeoutMs: number;
  /** Epoch milliseconds the run must stop by: `timeoutMs` after the pool received the job (its wait for a thread counts). */
  deadline: number;
  /** Milliseconds the job waited for a thread (0: it started at once), for the timeout's message. */
  waitedMs: number;
  limits: CodeLimits;
}

/** `valueFunction(i)` returns `JSON.parse(texts[i])` (a fresh value each call), `textFunction(i)` returns `texts[i]`. */
export interface BoundTemplates {
  valueFunction: string;
  textFunction: string;
  texts: string[];
}

/** Every way a run ends other than success; all but the last three are the code's own doing. */
export type SandboxErrorType =
  | 'SANDBOX_TIMEOUT'
  | 'SANDBOX_CANCELLED'
  | 'SANDBOX_MEMORY_LIMIT'
  | 'SANDBOX_SYNTAX_ERROR'
  | 'SANDBOX_ERROR'
  | 'SANDBOX_DEADLOCK'
  | 'SANDBOX_LOG_LIMIT'
  | 'SANDBOX_RESULT_TOO_LARGE'
  | 'SANDBOX_CRASHED'
  | 'SANDBOX_SHUTDOWN'
  | 'SANDBOX_BUSY';

export type CodeOutcome = { ok: true; value: unknown } | { ok: false; type: SandboxErrorType; message: string; retryable?: boolean };

/**
 * A wait shorter than this is the hand-over to a thread itself (a millisecond or two on a busy
 * machine), not a queue: the message does not blame it.
 */
export const NOTABLE_THREAD_WAIT_MS = 50;

/** The message of a run stopped at its deadline (by the thread's interrupt handler or, failing that, by the pool). */
export function timeoutMessage(timeoutMs: number, waitedMs: number): string {
  return waitedMs < NOTABLE_THREAD_WAIT_MS
    ? `the code ran longer than ${timeoutMs} ms`
    : `the code ran past its ${timeoutMs} ms timeout, ${waitedMs} ms of which it waited for a code-exec thread`;
}

export type ToThread = { kind: 'run'; id: number; job: CodeJob } | { kind: 'cancel'; id: number };

export type FromThread =
  /** QuickJS is loaded: the thread takes jobs. */
  | { kind: 'ready' }
  | { kind: 'log'; id: number; level: LogLevel; message: string; metadata?: LogMetadata }
  | { kind: 'done'; id: number; outcome: CodeOutcome };

/** What the pool hands a thread at start (`workerData`). */
export interface ThreadData {
  /** Slot 0 holds the id of a job to stop: the running script's interrupt handler reads it (the thread's event loop is busy then). */
  cancel: Int32Array;
}
