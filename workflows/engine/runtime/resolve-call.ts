/**
 * Resolves one plugin call of a step: its plugin, scope and inputs, its config with templates resolved (or
 * deferred to the activity where they read a secret, a script's kept apart), and the step record's view of
 * the call. The step runner then runs it inline (./inline-call.ts) or through an activity (./activity-call.ts).
 */
import type { StepDefinition } from '../definition';
import type { Activation } from '../graph/walker';
import { findPlugin, inlinePluginFor } from '../plugins';
import { SECRET_MASK, resolveInputs, resolveScript, resolveTemplates, type DeferredTemplate } from '../templates';
import { scriptProperties } from '../plugins/descriptor';
import { followsRule } from '../engine-rules';
import type { InlineRun } from '../inline/inline-plugin';
import { stepScope } from './context';
import { recordedConfig } from './attempts';
import type { EvaluationScope } from '../evaluate';
import type { PluginCall, StepAttempt, StepEnv, StepRecord } from './types';

/** Keys that deciders evaluate as raw expressions themselves, so template resolution leaves them alone. */
const RAW_KEYS: Record<string, string[]> = { conditional: ['expression'], case: ['expression'] };

export type CallExtras = Parameters<PluginCall>[3];

/** A call resolved: what the inline run or the activity call is made of. */
export interface ResolvedCall {
  pluginType: string;
  extras: CallExtras;
  /** A call for the whole batch reads `$item` as its incoming item (the first). */
  batchItem: CallExtras['item'];
  scope: EvaluationScope;
  inputs: Record<string, unknown>;
  /** Templates that read a secret: the activity evaluates them. */
  deferred: DeferredTemplate[];
  config: Record<string, unknown>;
  /** A script's templates' texts, per script property (the sandbox reads them as values). */
  bound: Record<string, string[]>;
  /** The built-in plugin the workflow runs itself, when it is one. */
  inline: InlineRun | undefined;
  record: StepRecord | undefined;
  /** Attempts are noted per call; the record keeps them when there was more than one. */
  attempts: StepAttempt[];
  itemIndex: number | undefined;
  /** A forEach iteration is retried by the engine on its own, a failure result marked retryable too (../engine-rules). */
  iterationRetries: boolean;
  reentered: boolean;
}

/** What a call of `step` needs, resolved in its scope (a passthrough step makes no call: the step runner answers it). */
export function resolveCall(env: StepEnv, step: StepDefinition, activation: Activation, extras: CallExtras): ResolvedCall {
  const { ctx, effects } = env;
  const pluginType = step.type === 'wait' && !step.pluginType ? 'signal-wait' : (step.pluginType as string);
  // A call for the whole batch reads `$item` as its incoming item (the first), as the compatible engine gives it;
  // the plugin still gets the whole batch as its items.
  const batchItem = extras.soleCall && extras.item === undefined ? extras.items[0] : undefined;
  let scope = stepScope(ctx, batchItem === undefined ? extras : { ...extras, item: batchItem });
  if (extras.extraVariables) scope = { ...scope, variables: { ...ctx.variables, ...extras.extraVariables } };
  // forEach passes its per-iteration inputs; otherwise the declared `inputs` map, else the item itself (data: never resolved).
  const resolvedInputs = extras.extraInputs ?? (step.inputs ? resolveInputs(step.inputs, scope) : undefined);
  const inputs = resolvedInputs?.values ?? extras.item ?? extras.items[0] ?? {};
  const deferred: DeferredTemplate[] = [...(resolvedInputs?.deferred ?? [])];
  scope = { ...scope, inputs };
  const raw = RAW_KEYS[pluginType] ?? [];
  const scripts = scriptProperties(findPlugin(pluginType));
  // A plugin the host runs itself (a kit stub) replaces the built-in one of that name.
  const inline = effects.hostPlugin?.(pluginType) ? undefined : inlinePluginFor(pluginType);
  // An inline plugin that shows text (log) renders a segment reading a secret as <redacted>, never loading the secret.
  const mask = inline && findPlugin(pluginType)?.masksSecrets === true ? SECRET_MASK : undefined;
  const config: Record<string, unknown> = {};
  // A script stays as written; its templates' texts travel apart, and the sandbox reads them as values.
  const bound: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(step.config ?? {})) {
    if (typeof value === 'string' && scripts.includes(key)) {
      config[key] = value;
      if (value.includes('${{'))
        bound[key] = resolveScript(value, scope, (index, template) => deferred.push({ target: 'bound', path: [key, index], template }));
      continue;
    }
    config[key] = raw.includes(key)
      ? value
      : resolveTemplates(value, scope, {
          mask,
          onDeferred: (path, template) => deferred.push({ target: 'config', path: [key, ...path], template }),
        });
  }

  // What a reader sees of the call: the first call of the run, secrets masked (./attempts.ts).
  const record = ctx.steps[step.id] as StepRecord | undefined;
  if (record && record.run === activation.run && record.config === undefined) record.config = recordedConfig(config, deferred, scope);
  const iterationRetries =
    extras.iteration === true && step.errorHandling?.retryPolicy !== undefined && followsRule(ctx.input, 'for-each-engine-retries');
  const reentered = Object.keys(activation.via).some((edgeId) => env.topology.edges[edgeId]?.kind === 'back');
  return {
    pluginType,
    extras,
    batchItem,
    scope,
    inputs,
    deferred,
    config,
    bound,
    inline,
    record,
    attempts: [],
    itemIndex: extras.soleCall ? undefined : extras.itemIndex,
    iterationRetries,
    reentered,
  };
}
