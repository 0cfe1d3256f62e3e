/**
 * Runs a definition through the pure engine with fake effects (a clock that
 * ticks, numbered uuids, activities and signals answered by the test), and
 * returns what the run did. Engine-lane tests only: no Temporal, no database.
 */
import {
  startExecution,
  type ActivityCall,
  type ChildRequest,
  type ChildResult,
  type ExecutionInput,
  type LogEntryDraft,
  type PluginCatalog,
  type PluginDescriptor,
  type PluginResult,
  type RuntimeEffects,
  type StepEvent,
  type WaitRequest,
  type WaitResult,
} from '../../workflows/engine';
import { executionInput } from './definitions';

export interface Fakes {
  activities?: Record<string, (call: ActivityCall) => PluginResult | Promise<PluginResult>>;
  signals?: (request: WaitRequest) => WaitResult;
  /** Answers sub-workflow children (throw to fail one). */
  children?: (request: ChildRequest) => ChildResult | Promise<ChildResult>;
  /** Plugins the host runs itself (as the kit's stubs do). */
  hostPlugins?: Record<string, PluginDescriptor>;
  /** Operator plugins the definition uses (validated and pinned as the API does). */
  plugins?: PluginCatalog;
}

export async function runDefinition(
  doc: Record<string, unknown>,
  inputs: Record<string, unknown> = {},
  fakes: Fakes = {},
  overrides: Partial<ExecutionInput> = {},
) {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let uuids = 0;
  const calls: ActivityCall[] = [];
  const logs: LogEntryDraft[] = [];
  const events: StepEvent[] = [];
  const waits: WaitRequest[] = [];
  const sleeps: number[] = [];
  const effects: RuntimeEffects = {
    now: () => (clock += 1),
    uuid: () => `uuid-${++uuids}`,
    callActivity: async (call) => {
      calls.push(call);
      const fake = fakes.activities?.[call.pluginType];
      if (!fake) throw new Error(`no fake for ${call.pluginType}`);
      return fake(call);
    },
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    waitForSignal: (request) => {
      waits.push(request);
      return Promise.resolve(fakes.signals?.(request) ?? { timedOut: true });
    },
    runChild: (request) =>
      fakes.children ? Promise.resolve().then(() => fakes.children!(request)) : Promise.reject(new Error('no children here')),
    log: (entry) => logs.push(entry),
    onEvent: (event) => events.push(event),
    ...(fakes.hostPlugins ? { hostPlugin: (name: string) => fakes.hostPlugins![name] } : {}),
  };
  const input = {
    ...executionInput(doc, {
      inputs,
      executionId: 'exec_1',
      workflowId: 'wf_1',
      receivedAt: '2026-01-01T00:00:00Z',
      plugins: fakes.plugins,
    }),
    ...overrides,
  };
  const execution = startExecution(input, { REGION: 'eu' }, effects);
  const outcome = await execution.done;
  return { outcome, calls, logs, events, waits, sleeps, ctx: execution.ctx };
}
