/** `delay`: a durable timer (workflow-side), at most 30 days; passes its items on. */
import { parseDuration } from '../durations';
import { failure, type InlinePlugin } from './inline-plugin';

export const MAX_DELAY_MS = 30 * 86_400_000;

export const delay: InlinePlugin = async ({ config, items, effects }) => {
  const ms = parseDuration(config.duration);
  if (ms === undefined || ms > MAX_DELAY_MS)
    return failure('PLUGIN_CONFIG_INVALID', 'delay "duration" must be a duration of at most 30 days');
  await effects.sleep(ms);
  return { status: 'success', items, outputs: { delayedMs: ms } };
};
