/**
 * The stubs a replay runs with: every recorded step (anything effectful or unknown to the kit, waits,
 * timers and children) answers from the export, its n-th activation with its recorded run n.
 */
import { findPlugin, pinnedPluginOf, type WorkflowDefinition } from '../workflows/engine';
import { definitionOfExport, type ExecutionExport } from './export-document';
import type { StubContext, StubResult, StubSpec, Stubs } from './stubs';

/** Built-in steps that run in the workflow but wait on the world: replayed from the recording too. */
const RECORDED_INLINE = new Set(['signal-wait', 'webhook-wait', 'delay', 'sub-workflow']);

/** Whether a step's plugin answers from the recording: anything effectful (or unknown here), waits, timers and children. */
function isRecorded(pluginType: string): boolean {
  const plugin = findPlugin(pluginType);
  if (plugin?.kind === 'trigger') return false;
  return !plugin || !plugin.inline || RECORDED_INLINE.has(pluginType);
}

/**
 * Stubs that answer each recorded step from the export: the n-th activation of a
 * step gets its run n's items, ports or error (one item per call when the run
 * fanned out per item). A call the recording does not have (a step that now runs
 * more often, or a new one) fails with REPLAY_NOT_RECORDED.
 */
export function recordedStubs(doc: ExecutionExport, definition: WorkflowDefinition = definitionOfExport(doc)): Stubs {
  const byRun = new Map(doc.steps.map((record) => [`${record.stepId}#${record.run}`, record]));
  const activations = new Map<string, number>();
  const handler = (ctx: StubContext): StubResult => {
    const index = ctx.itemIndex ?? 0;
    // A new activation starts with its first item's first attempt (fan-out calls start in item order).
    if (index === 0 && ctx.attempt === 1) activations.set(ctx.stepId, (activations.get(ctx.stepId) ?? 0) + 1);
    const run = activations.get(ctx.stepId) ?? 1;
    const record = byRun.get(`${ctx.stepId}#${run}`);
    if (!record || (record.status !== 'completed' && record.status !== 'failed' && record.status !== 'skipped'))
      return {
        status: 'failure',
        error: {
          code: 'REPLAY_NOT_RECORDED',
          message: record
            ? `step "${ctx.stepId}" run ${run} was ${record.status} when the execution was exported: it has no result to replay`
            : `step "${ctx.stepId}" run ${run} has no recorded result in the export`,
        },
      };
    if (record.status === 'failed')
      return {
        status: 'failure',
        error: { code: record.error?.code ?? 'STEP_FAILED', message: record.error?.message ?? `step "${ctx.stepId}" failed` },
      };
    if (record.status === 'skipped') return { status: 'skipped' };
    const items = structuredClone(record.items ?? []);
    if (record.metadata?.fanOut !== undefined) return { status: 'success', items: items[index] ? [items[index]] : [] };
    return { status: 'success', items, activePorts: [...(record.activePorts ?? ['default'])] };
  };
  const stubs: Stubs = {};
  for (const step of Object.values(definition.steps)) {
    const pluginType = step.type === 'wait' && !step.pluginType ? 'signal-wait' : step.pluginType;
    if (!pluginType || step.type === 'trigger' || Object.hasOwn(stubs, pluginType) || !isRecorded(pluginType)) continue;
    stubs[pluginType] = findPlugin(pluginType) ? { handler } : operatorStub(definition, pluginType, handler);
  }
  return stubs;
}

/** An operator's plugin, unknown to the kit: a module with the output ports its steps' connections use, in its pinned mode. */
function operatorStub(definition: WorkflowDefinition, pluginType: string, handler: StubSpec['handler']): StubSpec {
  const ids = new Set(
    Object.values(definition.steps)
      .filter((step) => step.pluginType === pluginType)
      .map((step) => step.id),
  );
  const ports = new Set(definition.connections.filter((c) => ids.has(c.from) && c.sourcePort !== 'default').map((c) => c.sourcePort));
  const pin = pinnedPluginOf(definition, pluginType);
  return {
    handler,
    ...(pin?.executeMode ? { executeMode: pin.executeMode } : {}),
    ports: { outputs: [...ports].map((name) => ({ name })) },
  };
}
