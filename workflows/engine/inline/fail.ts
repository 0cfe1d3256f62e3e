/** `fail`: fails the step on purpose with a message and a code (default `WORKFLOW_FAILED`). */
import { stringify } from '../evaluate';
import { failure, type InlinePlugin } from './inline-plugin';

export const fail: InlinePlugin = ({ config }) => {
  const result = failure(
    typeof config.code === 'string' && config.code !== '' ? config.code : 'WORKFLOW_FAILED',
    stringify(config.message) || 'failed on purpose',
  );
  if (config.metadata !== undefined) result.metadata = { details: config.metadata };
  return result;
};
