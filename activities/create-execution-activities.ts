/**
 * The execution workflow's activities: effectful plugin calls (secrets
 * resolved late and scrubbed from everything that leaves), `vars.*`
 * resolution at start, idempotent persistence of step records and logs, the
 * final record, and the preparation of sub-workflow children.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { dispatchFailure, endRun, handOnSlot, type WorkflowReach } from '../executions';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { LightStepResultRepository } from '../db/repositories/light-step-result-repository';
import { applyDeferred, deferredSecretNames, type ActivityCall, type ExecutionInput, type PluginResult } from '../workflows/engine';
import type { Limits } from '../config/limits';
import type { Logger } from '../config/logger';
import type {
  ChildPreparation,
  EventBatch,
  FinishRequest,
  LightStepOutcome,
  LightStepRequest,
  ResolveVarsRequest,
  ScheduledPreparation,
} from './execution-activity-types';
import { prepareChildExecution } from './prepare-child';
import { recordEventBatch, recordLastBatchWithEnd, recordStepWithEnd } from './record-event-batch';
import { prepareScheduledExecution } from './prepare-scheduled';
import type { CodeExecPool } from './plugins/code-exec-pool';
import { DEFAULT_EGRESS, type EgressPolicy } from './egress/policy';
import { effectfulPluginFor } from './plugins/registry';
import type { OperatorPlugins } from './plugins/operator/load-plugins';
import { operatorPluginRun } from './plugins/operator/run-operator-plugin';
import { Scrubber } from './secrets/scrubber';
import { withScrubber } from './secrets/scrubber-scope';
import { configEntryAccess } from './config-entry-access';
import { waitNoticeActivity } from './approval-notice';
import { checkOutputSize, scrubFailure } from './plugin-failures';

/** How long the worker tries to start a failure's recovery runs before leaving them to the sweep. */
const RECOVERY_DEADLINE_MS = 10_000;

/** How often a running plugin heartbeats (the worker's heartbeat throttle must not be longer: see worker/worker.ts). */
export const PLUGIN_HEARTBEAT_MS = 1000;

export interface ExecutionActivityDeps {
  dataSource: DataSource;
  /** Records which secrets each step call decrypts (names only): the audit trail of secret use. */
  logger: Logger;
  encryptionKey: Buffer;
  egress?: EgressPolicy;
  /** Threads that run code-exec scripts off the event loop (unset: the process's default pool). */
  codeExecPool?: CodeExecPool;
  temporalNamespace: string;
  publicBaseUrl?: string;
  /** The service's limits: those of the runs this worker starts (cron ticks; children inherit their parent's), and plugin ceilings. */
  limits: Limits;
  /** Where recovery runs of failed executions start; unset: the API's failure sweep starts them. */
  recoveryStarts?: RecoveryStarts;
  /** The operator's own plugins (the PLUGINS setting), run beside the built-ins. */
  operatorPlugins?: OperatorPlugins;
  /** What a workflow may reach: children, folder entries, others' failures (api/access/workflow-reach.ts, passed in). */
  reach: WorkflowReach;
}

/** The Temporal client and task queue recovery runs start on. */
export interface RecoveryStarts {
  temporal: Client;
  taskQueue: string;
}

/** The activities as the workflow proxies them: derived from the implementation below. */
export type ExecutionActivities = ReturnType<typeof createExecutionActivities>;

export function createExecutionActivities(deps: ExecutionActivityDeps) {
  const { dataSource } = deps;
  const lightResults = new LightStepResultRepository(dataSource.manager);
  const prepareDeps = {
    dataSource,
    temporalNamespace: deps.temporalNamespace,
    publicBaseUrl: deps.publicBaseUrl,
    limits: deps.limits,
    reach: deps.reach,
    ...(deps.recoveryStarts ? { temporal: deps.recoveryStarts.temporal } : {}),
  };
  /** Where the next queued run of a flow-control key starts when a run ends here (absent: the API's flow sweep). */
  const flowStarts = deps.recoveryStarts && {
    dataSource,
    temporal: deps.recoveryStarts.temporal,
    taskQueue: deps.recoveryStarts.taskQueue,
    publicBaseUrl: deps.publicBaseUrl ?? '',
    limits: deps.limits,
    logger: deps.logger,
  };

  const { configEntries, placeOf, outOfReachMessage, loadSecrets: loadSecretsFor } = configEntryAccess(deps);
  /** Decrypts the named secrets for one step call, each use logged by name. */
  const loadSecrets = (call: ActivityCall, names: string[]): Promise<Record<string, string>> =>
    loadSecretsFor(
      {
        organizationId: call.organizationId,
        workflowId: call.workflowId,
        secretBindings: call.secretBindings,
        logged: { executionId: call.executionId, stepId: call.stepId },
        purpose: 'a step',
      },
      names,
    );

  /** Starts the recovery runs of a failure just recorded; a problem is logged and left to the API's failure sweep. */
  const startRecoveryRuns = async (executionId: string): Promise<void> => {
    if (!deps.recoveryStarts) return;
    const row = await new ExecutionRepository(dataSource.manager).findOneBy({ id: executionId });
    if (!row || row.status !== 'failed' || row.failureDispatchedAt !== null) return;
    const dispatch = {
      dataSource,
      ...deps.recoveryStarts,
      publicBaseUrl: deps.publicBaseUrl ?? '',
      limits: deps.limits,
      logger: deps.logger,
      reach: deps.reach,
    };
    // Bounded: this runs inside the finishing local activity, and the sweep is there for a slow Temporal.
    await deps.recoveryStarts.temporal
      .withDeadline(Date.now() + RECOVERY_DEADLINE_MS, () => dispatchFailure(dispatch, row))
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, executionId }, 'recovery runs could not be started; the failure sweep retries'),
      );
  };

  /**
   * Runs one effectful plugin call. The only strings evaluated here are the definition's templates that
   * read a secret (`call.deferred`); the secrets loaded are the ones those templates name. Every secret
   * value is scrubbed from what returns.
   */
  const runPlugin = async (call: ActivityCall, context: Context): Promise<PluginResult> => {
    const plugin = effectfulPluginFor(call.pluginType) ?? operatorPluginRun(deps.operatorPlugins, call);
    if (!plugin) throw ApplicationFailure.nonRetryable(`plugin "${call.pluginType}" cannot run in this worker`, 'PLUGIN_NOT_AVAILABLE');

    const deferred = call.deferred ?? [];
    const secrets = await loadSecrets(call, deferredSecretNames(deferred));
    const scrubber = new Scrubber(Object.values(secrets));
    const lines: NonNullable<PluginResult['logs']> = [];
    // Temporal tells a running activity it was cancelled only in answer to a heartbeat: beat while the plugin
    // runs. A local activity cannot heartbeat (and needs not: its cancellation reaches it directly).
    const heartbeat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), PLUGIN_HEARTBEAT_MS);
    try {
      const { config, inputs, bound } = applyDeferred(call, deferred, { ...call.scope, secrets });
      const result = await withScrubber(scrubber, () =>
        plugin({
          call,
          config,
          inputs,
          bound,
          secrets,
          signal: context.cancellationSignal,
          egress: deps.egress ?? DEFAULT_EGRESS,
          codeExecPool: deps.codeExecPool,
          maxPages: deps.limits.maxPages,
          log: (level, message, metadata) => lines.push({ level, message, ...(metadata ? { metadata } : {}) }),
        }),
      );
      checkOutputSize(result, call.maxOutputBytes);
      // Temporal's attempt, when it retried the call: the step record lists the attempts (workflows/engine/runtime/attempts.ts).
      const attempt = context.info.attempt > 1 ? { attempt: context.info.attempt } : {};
      return scrubber.value({ ...result, logs: lines, ...attempt });
    } catch (error) {
      throw scrubFailure(error, scrubber, lines, context.info.attempt);
    } finally {
      clearInterval(heartbeat);
    }
  };

  return {
    callPlugin: (call: ActivityCall): Promise<PluginResult> => runPlugin(call, Context.current()),

    /** A declared-answer wait's notification, sent once per wait (./approval-notice.ts). */
    notifyWait: waitNoticeActivity({ dataSource, egress: deps.egress ?? DEFAULT_EGRESS, publicBaseUrl: deps.publicBaseUrl }),

    /**
     * A light step (a local activity, docs/architecture.md, "Light steps"): the call, unless it completed before (a
     * worker lost before Temporal recorded the result: then its stored result), then the step records the
     * workflow batched before it, written with the call's stored result in one statement. The database is
     * not the step's to fail on: without it the call is made (not checked against a stored result), and
     * the batch is left for the workflow to write by its persistence activity (`batchWritten: false`).
     */
    async callLightStep({ call, batch, end, firstTask }: LightStepRequest): Promise<LightStepOutcome> {
      const context = Context.current();
      const runId = context.info.workflowExecution?.runId ?? '';
      // The workflow sends only light calls here; without the key a stored result could not be found again.
      const callKey = call.light?.callKey;
      if (!callKey) throw ApplicationFailure.nonRetryable(`step ${call.stepId} is not a light step`, 'PLUGIN_NOT_AVAILABLE');
      const unavailable = (what: string) => (error: unknown) => {
        deps.logger.warn({ err: error, executionId: call.executionId, stepId: call.stepId }, `light step: ${what} failed`);
        return undefined;
      };
      const writeBatch = async (result?: PluginResult): Promise<boolean> => {
        try {
          if (batch) await recordEventBatch(dataSource, batch, result && { workflowRunId: runId, callKey, result });
          else if (result) await lightResults.remember(runId, callKey, result);
          return true;
        } catch (error) {
          return unavailable('writing its records')(error) ?? false;
        }
      };
      /** When the result ends the run: the batch, the result, the step's last records and the end, in one write. */
      const writeWithEnd = async (result: PluginResult): Promise<boolean> => {
        if (!call.endsRun || !end) return false;
        try {
          const scope = await recordStepWithEnd(
            dataSource,
            { call, batch, end, endsRun: call.endsRun },
            { workflowRunId: runId, callKey, result },
          );
          if (scope === false) return false;
          await handOnSlot({ dataSource, starts: flowStarts, logger: deps.logger }, scope);
          return true;
        } catch (error) {
          return unavailable('writing its records with the end')(error) ?? false;
        }
      };
      // The first attempt of a call scheduled in the run's first workflow task is the first of that call anywhere:
      // there is no stored result to look for (a read saved per step of most short runs).
      const firstEver = firstTask === true && context.info.attempt === 1;
      const completed = firstEver ? undefined : await lightResults.resultOf(runId, callKey).catch(unavailable('reading its stored result'));
      // Again after a lost worker: the end it wrote is written again, changing nothing (idempotent), so the replay ends alike.
      if (completed) {
        if (await writeWithEnd(completed)) return { result: completed, batchWritten: true, endWritten: true };
        return { result: completed, batchWritten: await writeBatch() };
      }
      let result: PluginResult;
      try {
        result = await runPlugin(call, context);
      } catch (error) {
        await writeBatch();
        throw error;
      }
      if (await writeWithEnd(result)) return { result, batchWritten: true, endWritten: true };
      return { result, batchWritten: await writeBatch(result) };
    },

    /**
     * Values of the `vars.*` a definition references, resolved once at start (never secrets); checks that its
     * declared secrets exist. A variable or declared secret found only outside the workflow's NRN fails the run
     * here, saying where it is (silently leaving it out would read as "no such entry").
     */
    async resolveVars({ organizationId, workflowId, names, secrets = [] }: ResolveVarsRequest): Promise<Record<string, unknown>> {
      if (names.length === 0 && secrets.length === 0) return {};
      const place = await placeOf(organizationId, workflowId);
      if (secrets.length > 0) {
        const { entries: found, outOfReach } = await configEntries.effective(organizationId, place, secrets, true);
        if (outOfReach.length > 0)
          throw ApplicationFailure.nonRetryable(outOfReachMessage('secret', outOfReach, place.workflowNrn), 'CONFIG_ENTRY_UNRESOLVED');
        const missing = secrets.filter((name) => !found.some((entry) => entry.name === name));
        if (missing.length > 0)
          throw ApplicationFailure.nonRetryable(
            `declared secret ${missing.join(', ')} has no value for this workflow`,
            'SECRET_UNRESOLVED',
          );
      }
      if (names.length === 0) return {};
      const { entries, outOfReach } = await configEntries.effective(organizationId, place, names, false);
      if (outOfReach.length > 0)
        throw ApplicationFailure.nonRetryable(outOfReachMessage('variable', outOfReach, place.workflowNrn), 'CONFIG_ENTRY_UNRESOLVED');
      // Names without a value are left out: a step that reads one fails then (CONFIG_ENTRY_UNRESOLVED), not the whole run.
      return Object.fromEntries(entries.map((entry) => [entry.name, entry.value]));
    },

    /** Persists step events and log entries (idempotent by sequence number). */
    async recordEvents(batch: EventBatch): Promise<void> {
      await recordEventBatch(dataSource, batch);
    },

    /**
     * Writes the final status, outputs and error of the execution record. A cancel answers how the run ended: its
     * last light step may have written a completed end before (engine rule `end-with-last-light-step`).
     */
    async finishExecution(request: FinishRequest): Promise<{ endedAs?: string } | void> {
      const end = { status: request.status, outputs: request.outputs, error: request.error ?? null, eventSeq: request.eventSeq };
      const flow = { dataSource, starts: flowStarts, logger: deps.logger };
      // The run's last records and its end: one statement when they can be (./record-event-batch.ts). A run that held
      // a concurrency slot hands it to the next queued run of its key here (executions/flow/).
      if (request.batch) await handOnSlot(flow, await recordLastBatchWithEnd(dataSource, request.batch, end));
      else await endRun(flow, request.executionId, end.status, end.outputs, end.error, end.eventSeq);
      if (request.status === 'failed') await startRecoveryRuns(request.executionId);
      if (request.askEnd)
        return { endedAs: (await new ExecutionRepository(dataSource.manager).findOneBy({ id: request.executionId }))?.status };
    },

    /** Resolves a sub-workflow's revision and records the child execution; returns its input. */
    prepareChild: (request: ChildPreparation): Promise<ExecutionInput> => prepareChildExecution(prepareDeps, request),

    /** Records the execution of a cron tick (one per tick) and returns its input. */
    prepareScheduledExecution: (request: ScheduledPreparation): Promise<ExecutionInput> => prepareScheduledExecution(prepareDeps, request),
  };
}
