/**
 * `sub-workflow`: one child execution per item (the step fans out in `each`
 * mode), run as a Temporal child workflow from the workflow side. The child's
 * `outputs` come back as `{outputs, _childExecutionId}`; `iterateItems: false`
 * starts one child with the batch as `inputs.items`; with
 * `waitForCompletion: false` the child is started and not awaited.
 */
import { stringify } from '../evaluate';
import { failure, type InlinePlugin } from './inline-plugin';

export const subWorkflow: InlinePlugin = async ({ step, config, inputs, ctx, effects, item, items }) => {
  const workflowId = stringify(config.workflowId);
  if (workflowId === '') return failure('PLUGIN_CONFIG_INVALID', 'sub-workflow needs a "workflowId"');
  const configured = config.inputs !== null && typeof config.inputs === 'object' ? (config.inputs as Record<string, unknown>) : undefined;
  // iterateItems: false runs the step once (`all` mode): one child gets the whole batch as `inputs.items`.
  const childInputs = config.iterateItems === false ? { ...(configured ?? (step.inputs ? inputs : {})), items } : (configured ?? inputs);
  const result = await effects.runChild({
    stepId: step.id,
    itemIndex: 0,
    workflowId,
    alias: typeof config.alias === 'string' ? config.alias : undefined,
    revision: typeof config.revision === 'number' ? config.revision : undefined,
    inputs: childInputs ?? item ?? {},
    waitForCompletion: config.waitForCompletion !== false,
    correlationKey: config.inheritCorrelationKey === true ? ctx.input.correlationKey : undefined,
  });
  return { status: 'success', outputs: { outputs: result.outputs, _childExecutionId: result.executionId } };
};
