/** Calling effectful plugins directly in tests: a plugin context around a config, and the failure a call must end in. */
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import type { EgressPolicy } from '../../activities/egress/policy';
import type { PluginContext } from '../../activities/plugins/plugin-context';
import type { ActivityCall } from '../../workflows/engine';
import { TEST_EGRESS } from './egress';

/** A context for one plugin call with `config`; `lines` collects what the plugin logs. */
export function pluginContext(config: Record<string, unknown>, extra: Partial<ActivityCall> = {}, egress: EgressPolicy = TEST_EGRESS) {
  const lines: Array<[string, string]> = [];
  const call: ActivityCall = {
    executionId: 'exec_1',
    organizationId: '1',
    workflowId: 'wf_1',
    stepId: 's',
    pluginType: 'x',
    config,
    inputs: {},
    items: [{}],
    ...extra,
  };
  const ctx: PluginContext = {
    call,
    config,
    inputs: call.inputs,
    signal: new AbortController().signal,
    egress,
    log: (level, message) => lines.push([level, message]),
  };
  return { ctx, lines };
}

/** The ApplicationFailure `promise` rejects with (fails the test when it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, String(error));
    return error;
  }
  assert.fail('expected a failure');
}
