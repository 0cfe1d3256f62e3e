/** What the execution module needs to record and start executions. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { RunLimits } from '../workflows/engine';

export interface StartDeps {
  dataSource: DataSource;
  temporal: Client;
  /**
   * A client on the connection of a worker in this process that polls `taskQueue` (`npm start`: the API
   * and the worker in one process). Starts go through it with eager workflow start: Temporal hands the
   * run's first workflow task back in the start's reply, to that worker, instead of through its matching
   * queue, a round trip less on every start (figures: docs/benchmarks.md). Absent: plain starts.
   */
  eagerStarts?: Client;
  /** Task queue the execution workflows are started on (the worker polls it). */
  taskQueue: string;
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl: string;
  /** What each run may do (the service's configured limits). */
  limits: RunLimits;
}

/**
 * Whether a workflow may reach a target (a child workflow, a folder config entry, another run's
 * failure). The one rule lives in the access module (api/access/workflow-reach.ts); executions/ and
 * activities/ sit below api/, so whoever builds their deps (startup/, the tests) passes it in.
 */
export interface WorkflowReach {
  /** A workflow's NRN: the one its definition names, else its organization's. */
  nrnOf(workflow: { nrn: string | null; organizationId: string }): string;
  /** Whether a workflow at `workflowNrn` may reach something at `targetNrn`. */
  reaches(workflowNrn: string, targetNrn: string): boolean;
}
