/**
 * What a local run (`runWorkflow`, ./run.ts; also the kit's Temporal executor) is asked and what it answers:
 * its options, its result, and each step's result built from the run's step records.
 */
import type { LogEntryDraft, RunLimits, StepEvent, StepRecord, WorkflowDefinition } from '../workflows/engine';
import type { EgressPolicy } from '../activities/egress/policy';
import type { WorkflowSource } from './children';
import type { ClockMode } from './clock';
import type { RunFailureInfo } from './errors';
import type { SignalResponder } from './local-effects';
import type { Stubs } from './stubs';

export interface RunOptions {
  /** The definition (document or normalized), or `file`: a YAML or JSON file. */
  definition?: WorkflowDefinition | Record<string, unknown>;
  file?: string;
  inputs?: Record<string, unknown>;
  /** The trigger step to fire: default the first `manual` trigger, else the first trigger. */
  trigger?: string;
  /** The port the fired trigger activates (default `default`). */
  triggerPort?: string;
  /** What the trigger received (`trigger.payload`; default: the inputs), as a recorded webhook or cron run had it. */
  triggerPayload?: Record<string, unknown>;
  /** The run's correlation key (`execution.correlationKey`). */
  correlationKey?: string;
  stubs?: Stubs;
  vars?: Record<string, unknown>;
  secrets?: Record<string, string>;
  /** `error` (default, as the server): reading a missing var or secret fails the step; `undefined`: it reads as undefined. */
  missingConfig?: 'error' | 'undefined';
  signals?: SignalResponder;
  /** What `sub-workflow` steps run: key → definition, file or folder; or one folder of definition files. */
  workflows?: Record<string, WorkflowSource> | string;
  clock?: ClockMode;
  throwOnFailure?: boolean;
  /**
   * Outbound policy of the real http-request, paginated-fetch and code-exec plugins: the server's default
   * (loopback and private ranges closed), with what is given here in place of its fields. A local run that
   * calls a local service opens its range: `egress: { allowCidrs: ['127.0.0.0/8', '::1'] }`.
   */
  egress?: Partial<EgressPolicy>;
  /** Run limits (default: the server's defaults, such as a sub-workflow depth of 10 and 100 children per execution). */
  limits?: Partial<RunLimits>;
  /** Every step event as it happens (the command line's live view). */
  onEvent?: (event: StepEvent, executionId: string) => void;
}

export interface StepResult {
  status: StepRecord['status'];
  inputs?: Record<string, unknown>;
  outputs: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
  activePorts: string[];
  error?: StepRecord['error'];
  /** How many times the step ran (0: skipped without running, on a path not taken). */
  runs: number;
  /** When its latest run started and settled (the run's clock). */
  startedAt?: string;
  completedAt?: string;
}

export interface RunResult {
  status: 'completed' | 'failed';
  outputs: Record<string, unknown>;
  steps: Record<string, StepResult>;
  variables: Record<string, unknown>;
  logs: LogEntryDraft[];
  error?: RunFailureInfo;
  executionId: string;
}

/** The run's step records as the result reports them (`inputs`: the record's, else those of the step's last plugin call). */
export function stepResults(
  records: Record<string, StepRecord>,
  stepInputs: Record<string, Record<string, unknown>>,
): Record<string, StepResult> {
  const steps: Record<string, StepResult> = {};
  for (const [id, record] of Object.entries(records)) {
    const inputs = record.inputs ?? stepInputs[id];
    steps[id] = {
      status: record.status,
      ...(inputs !== undefined ? { inputs } : {}),
      outputs: record.outputs,
      items: record.items,
      activePorts: record.activePorts,
      ...(record.error ? { error: record.error } : {}),
      runs: record.run,
      ...(record.startedAt ? { startedAt: record.startedAt } : {}),
      ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    };
  }
  return steps;
}
