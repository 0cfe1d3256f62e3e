/** `log`: writes one execution log entry and passes its items on. Never fails. */
import { stringify } from '../evaluate';
import type { InlinePlugin } from './inline-plugin';

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);

export const log: InlinePlugin = ({ step, config, items, effects }) => {
  const level =
    typeof config.level === 'string' && LEVELS.has(config.level) ? (config.level as 'debug' | 'info' | 'warn' | 'error') : 'info';
  const message = stringify(config.message);
  const timestamp = new Date(effects.now()).toISOString();
  const metadata =
    config.metadata !== null && typeof config.metadata === 'object' ? (config.metadata as Record<string, unknown>) : undefined;
  effects.log({ stepId: step.id, level, message, metadata, timestamp });
  return { status: 'success', items, outputs: { level, message, timestamp } };
};
