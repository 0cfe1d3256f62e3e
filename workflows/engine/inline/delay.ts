/** `delay`: a durable timer (workflow-side), at most 30 days; passes its items on. */
import { parseDuration } from '../durations';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { duration } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

export const MAX_DELAY_MS = 30 * 86_400_000;

const delay: InlineRun = async ({ config, items, effects }) => {
  const ms = parseDuration(config.duration);
  if (ms === undefined || ms > MAX_DELAY_MS)
    return failure('PLUGIN_CONFIG_INVALID', 'delay "duration" must be a duration of at most 30 days');
  await effects.sleep(ms);
  return { status: 'success', items, outputs: { delayedMs: ms } };
};

export const delayPlugin: InlinePlugin = {
  descriptor: {
    name: 'delay',
    kind: 'module',
    description: 'Durable timer.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: closedOutputs({ delayedMs: field('integer', 'how long the step waited, in milliseconds') }),
    configSchema: { properties: { duration: duration('up to 30 days') }, required: ['duration'] },
  },
  run: delay,
};
