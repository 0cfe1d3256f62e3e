/**
 * `sub-workflow`: one child execution per item (the step fans out in `each`
 * mode), run as a Temporal child workflow from the workflow side. The child's
 * `outputs` come back as `{outputs, _childExecutionId}`; `iterateItems: false`
 * starts one child with the batch as `inputs.items`; with
 * `waitForCompletion: false` the child is started and not awaited.
 */
import { stringify } from '../evaluate';
import { failure, type InlinePlugin, type InlineRun } from './inline-plugin';
import { str, bool, int, obj } from '../plugins/schema';
import { RUN_LIMIT_SETTINGS, runLimitsOf } from '../limits';
import { closedOutputs, field } from '../plugins/outputs';

const subWorkflow: InlineRun = async ({ step, config, inputs, ctx, effects, item, items }) => {
  const workflowId = stringify(config.workflowId);
  if (workflowId === '') return failure('PLUGIN_CONFIG_INVALID', 'sub-workflow needs a "workflowId"');
  const configured = config.inputs !== null && typeof config.inputs === 'object' ? (config.inputs as Record<string, unknown>) : undefined;
  // iterateItems: false runs the step once (`all` mode): one child gets the whole batch as `inputs.items`.
  const childInputs = config.iterateItems === false ? { ...(configured ?? (step.inputs ? inputs : {})), items } : (configured ?? inputs);
  const limits = runLimitsOf(ctx.input);
  const depth = (ctx.input.depth ?? 0) + 1;
  if (depth > limits.maxSubWorkflowDepth) {
    return failure(
      'SUBWORKFLOW_DEPTH_EXCEEDED',
      `a sub-workflow here would nest ${depth} levels deep; at most ${limits.maxSubWorkflowDepth} are allowed (${RUN_LIMIT_SETTINGS.maxSubWorkflowDepth})`,
    );
  }
  const started = (ctx.childrenStarted ?? 0) + 1;
  if (started > limits.maxChildrenPerExecution) {
    return failure(
      'SUBWORKFLOW_LIMIT_EXCEEDED',
      `this execution would start more than ${limits.maxChildrenPerExecution} sub-workflows (${RUN_LIMIT_SETTINGS.maxChildrenPerExecution})`,
    );
  }
  ctx.childrenStarted = started;
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

export const subWorkflowPlugin: InlinePlugin = {
  descriptor: {
    name: 'sub-workflow',
    kind: 'module',
    description: 'Runs a child execution per item (iterateItems: false: one child with inputs.items).',
    executeMode: 'each',
    inline: true,
    executeModeFrom: { property: 'iterateItems', modes: { true: 'each', false: 'all' } },
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: closedOutputs({
      outputs: field('object', "the child execution's outputs (its definition's outputs block)"),
      _childExecutionId: field('string', 'the id of the child execution'),
    }),
    configSchema: {
      properties: {
        workflowId: str(),
        alias: str(),
        revision: int(undefined, 1),
        waitForCompletion: bool(),
        inheritCorrelationKey: bool(),
        iterateItems: bool(),
        maxParallelism: int(undefined, 1),
        inputs: obj(),
      },
      required: ['workflowId'],
    },
  },
  run: subWorkflow,
};
