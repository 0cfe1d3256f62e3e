/** Plugins that run inside the workflow, by plugin type. */
import { caseDecider } from './case';
import { conditional } from './conditional';
import { delay } from './delay';
import { fail } from './fail';
import type { InlinePlugin } from './inline-plugin';
import { log } from './log';
import { noOp } from './no-op';
import { setVariable } from './set-variable';
import { signalWait } from './signal-wait';
import { splitInBatches } from './split-in-batches';
import { subWorkflow } from './sub-workflow';
import { webhookWait } from './webhook-wait';

export const INLINE_PLUGINS: Readonly<Record<string, InlinePlugin>> = {
  conditional,
  case: caseDecider,
  log,
  'no-op': noOp,
  fail,
  delay,
  'set-variable': setVariable,
  'signal-wait': signalWait,
  'split-in-batches': splitInBatches,
  'sub-workflow': subWorkflow,
  'webhook-wait': webhookWait,
};

export function inlinePluginFor(pluginType: string | undefined): InlinePlugin | undefined {
  return pluginType !== undefined && Object.hasOwn(INLINE_PLUGINS, pluginType) ? INLINE_PLUGINS[pluginType] : undefined;
}

export type { InlineCall, InlinePlugin } from './inline-plugin';
