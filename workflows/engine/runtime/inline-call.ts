/**
 * Runs a resolved plugin call inline, in the workflow itself (a built-in plugin with no effects), under the
 * step's retry policy, noting each attempt on the step record.
 */
import type { StepDefinition } from '../definition';
import type { InlineCall, InlineRun } from '../inline/inline-plugin';
import { keepAttempts, trackedAttempt } from './attempts';
import { withRetries } from './retry-loop';
import { toStepError } from './step-record';
import type { ResolvedCall } from './resolve-call';
import type { PluginResult, StepEnv } from './types';

export async function runInline(env: StepEnv, step: StepDefinition, call: ResolvedCall, inline: InlineRun): Promise<PluginResult> {
  const { ctx, effects } = env;
  const { extras, attempts } = call;
  const inlineCall: InlineCall = {
    step,
    config: call.config,
    inputs: call.inputs,
    items: extras.item ? [extras.item] : extras.items,
    item: extras.item,
    scope: call.scope,
    ctx,
    effects,
    hasPortEdge: (port) => env.topology.outgoing[step.id].some((edgeId) => env.topology.edges[edgeId].sourcePort === port),
    reentered: call.reentered,
  };
  try {
    return await withRetries(
      step.errorHandling?.retryPolicy,
      effects,
      () => trackedAttempt(effects, attempts, call.itemIndex, async () => inline(inlineCall), toStepError),
      { retryFailureResults: call.iterationRetries },
    );
  } finally {
    keepAttempts(call.record, attempts);
  }
}
