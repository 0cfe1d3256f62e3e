/**
 * `log`: writes one execution log entry and passes its items on. Never fails.
 * A message (or metadata) mixing data and `${{ secrets.X }}` is rendered with
 * each segment that reads a secret shown as `<redacted>`: the log runs inside
 * the workflow, and the secret is never loaded there (descriptor `masksSecrets`).
 */
import { stringify } from '../evaluate';
import type { InlinePlugin, InlineRun } from './inline-plugin';
import { str, obj } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);

const log: InlineRun = ({ step, config, items, effects }) => {
  const level =
    typeof config.level === 'string' && LEVELS.has(config.level) ? (config.level as 'debug' | 'info' | 'warn' | 'error') : 'info';
  const message = stringify(config.message);
  const timestamp = new Date(effects.now()).toISOString();
  const metadata =
    config.metadata !== null && typeof config.metadata === 'object' ? (config.metadata as Record<string, unknown>) : undefined;
  effects.log({ stepId: step.id, level, message, metadata, timestamp });
  return { status: 'success', items, outputs: { level, message, timestamp } };
};

export const logPlugin: InlinePlugin = {
  descriptor: {
    name: 'log',
    kind: 'module',
    description: 'Writes a log entry; never fails.',
    executeMode: 'all',
    inline: true,
    masksSecrets: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: closedOutputs({
      level: field('string', 'the level written'),
      message: field('string', 'the message as written to the log'),
      timestamp: field('string', 'when the entry was written (ISO-8601)'),
    }),
    configSchema: {
      properties: { level: str(undefined, { enum: ['debug', 'info', 'warn', 'error'] }), message: { type: 'any' }, metadata: obj() },
      required: ['message'],
    },
  },
  run: log,
};
