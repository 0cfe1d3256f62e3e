/**
 * The trigger activity: tells an operator's trigger plugin its trigger was
 * activated on an alias, or deactivated (the `runTriggerLifecycle` workflow,
 * started by the API's registrar, runs it). The trigger's config is read from
 * the revision and its templates resolved here (`secrets.*` and `vars.*`, the
 * roots a trigger has), every secret value is scrubbed from what comes back
 * (its state, its errors, its log lines), and the plugin runs only at a
 * version compatible with the one the revision pinned.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import type { WorkflowReach } from '../executions';
import type { Logger } from '../config/logger';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import {
  ExpressionError,
  applyDeferred,
  deferredSecretNames,
  pinnedPluginOf,
  renamingBindings,
  resolveTemplates,
  varReferences,
  type DeferredTemplate,
  type TriggerLifecycleRequest,
  type TriggerLifecycleResult,
} from '../workflows/engine';
import { configEntryAccess } from './config-entry-access';
import { DEFAULT_EGRESS, type EgressPolicy } from './egress/policy';
import type { OperatorPlugins } from './plugins/operator/load-plugins';
import { requireCompatibleVersion } from './plugins/operator/run-operator-plugin';
import { runTriggerPlugin } from './plugins/operator/run-trigger-plugin';
import { Scrubber } from './secrets/scrubber';
import { withScrubber } from './secrets/scrubber-scope';

export interface TriggerActivityDeps {
  dataSource: DataSource;
  logger: Logger;
  encryptionKey: Buffer;
  reach: WorkflowReach;
  egress?: EgressPolicy;
  operatorPlugins?: OperatorPlugins;
}

export function createTriggerActivities(deps: TriggerActivityDeps) {
  const access = configEntryAccess(deps);
  return {
    async runTriggerPlugin(request: TriggerLifecycleRequest): Promise<TriggerLifecycleResult> {
      const { organizationId, workflowId, triggerId, pluginType } = request;
      const plugin = deps.operatorPlugins?.byName.get(pluginType);
      if (!plugin?.trigger)
        throw ApplicationFailure.nonRetryable(
          `plugin "${pluginType}" is not a trigger plugin this worker loads: add it to PLUGINS`,
          'PLUGIN_NOT_AVAILABLE',
        );
      const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(organizationId, workflowId, {
        revision: request.revision,
      });
      const step = typeof runnable === 'string' ? undefined : runnable.definition.steps[triggerId];
      if (typeof runnable === 'string' || step?.type !== 'trigger' || step.pluginType !== pluginType)
        throw ApplicationFailure.nonRetryable(
          `revision ${request.revision} of workflow ${workflowId} has no ${pluginType} trigger "${triggerId}"`,
          'TRIGGER_NOT_FOUND',
        );
      const { definition } = runnable;
      requireCompatibleVersion(pluginType, plugin, pinnedPluginOf(definition, pluginType)?.version, 'triggers');

      const logged = { workflowId, aliasName: request.aliasName, triggerId, phase: request.phase };
      // The definition's templates only, evaluated once: `vars.*` here, those reading a secret after it is loaded.
      const deferred: DeferredTemplate[] = [];
      const rawConfig = step.config ?? {};
      let config: Record<string, unknown>;
      let secrets: Record<string, string>;
      try {
        const vars = await access.loadVars(organizationId, workflowId, varReferences([rawConfig], { bareExpressions: false }));
        const resolved = resolveTemplates(
          rawConfig,
          { vars },
          { onDeferred: (path, template) => deferred.push({ target: 'config', path, template }) },
        );
        secrets = await access.loadSecrets(
          { organizationId, workflowId, secretBindings: renamingBindings(definition), logged, purpose: 'a trigger' },
          deferredSecretNames(deferred),
        );
        config = applyDeferred({ config: resolved as Record<string, unknown>, inputs: {} }, deferred, { vars, secrets }).config;
      } catch (error) {
        if (error instanceof ExpressionError)
          throw ApplicationFailure.nonRetryable(
            `the trigger's config: ${error.message} (a trigger reads secrets.* and vars.* only)`,
            error.code,
          );
        throw error;
      }

      const scrubber = new Scrubber(Object.values(secrets));
      const lines: Array<{ level: 'debug' | 'info' | 'warn' | 'error'; message: string }> = [];
      try {
        const result = await withScrubber(scrubber, () =>
          runTriggerPlugin({
            plugin,
            request,
            config,
            secrets,
            egress: deps.egress ?? DEFAULT_EGRESS,
            signal: Context.current().cancellationSignal,
            log: (level, message) => lines.push({ level, message }),
          }),
        );
        return scrubber.value(result);
      } catch (error) {
        throw scrubbedFailure(error, scrubber);
      } finally {
        for (const { level, message } of lines) deps.logger[level]({ ...logged, plugin: pluginType }, scrubber.text(message));
      }
    },
  };
}

/** A failure rebuilt with every secret form removed from its message and type (its cause chain and stack stay here). */
function scrubbedFailure(error: unknown, scrubber: Scrubber): ApplicationFailure {
  if (error instanceof ApplicationFailure)
    return ApplicationFailure.create({
      message: scrubber.text(error.message),
      type: error.type == null ? undefined : scrubber.text(error.type),
      nonRetryable: error.nonRetryable ?? undefined,
    });
  return ApplicationFailure.create({
    message: scrubber.text(error instanceof Error ? error.message : String(error)),
    type: 'PLUGIN_ERROR',
  });
}
