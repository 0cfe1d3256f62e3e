/** `fail`: fails the step on purpose with a message and a code (default `WORKFLOW_FAILED`). */
import { stringify } from '../evaluate';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, obj } from '../plugins/schema';
import { closedOutputs } from '../plugins/outputs';

const fail: InlineRun = ({ config }) => {
  const result = failure(
    typeof config.code === 'string' && config.code !== '' ? config.code : 'WORKFLOW_FAILED',
    stringify(config.message) || 'failed on purpose',
  );
  if (config.metadata !== null && typeof config.metadata === 'object' && !Array.isArray(config.metadata) && result.error)
    result.error.details = config.metadata as Record<string, unknown>;
  return result;
};

export const failPlugin: InlinePlugin = {
  descriptor: {
    name: 'fail',
    kind: 'module',
    description: 'Fails on purpose with a code.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: closedOutputs({}, 'none: the step always fails (read steps.<id>.error.message and .code)'),
    configSchema: { properties: { message: str(), code: str(), metadata: obj() }, required: ['message'] },
  },
  run: fail,
};
