/** `conditional` decider: the truthiness of a raw expression picks the `true` or `false` port (renameable). */
import { evaluateExpression, isTruthy } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { InlinePlugin, InlineRun } from './inline-plugin';
import { str } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

const conditional: InlineRun = ({ config, items, scope }) => {
  const expression = config.expression;
  const result = isTruthy(typeof expression === 'string' ? evaluateExpression(unwrapRaw(expression), scope) : expression);
  const port = result
    ? typeof config.truePort === 'string'
      ? config.truePort
      : 'true'
    : typeof config.falsePort === 'string'
      ? config.falsePort
      : 'false';
  return { status: 'success', items, outputs: { matchedPort: port, result }, activePorts: [port] };
};

export const conditionalPlugin: InlinePlugin = {
  descriptor: {
    name: 'conditional',
    kind: 'decider',
    description: 'Routes by the truthiness of an expression.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['true', 'false'],
    dynamicPorts: true,
    outputSchema: closedOutputs({
      matchedPort: field('string', 'the port the step left through (truePort or falsePort)'),
      result: field('boolean', 'the truthiness of the expression'),
    }),
    configSchema: {
      properties: { expression: { type: ['string', 'boolean'], format: 'expression' }, truePort: str(), falsePort: str() },
      required: ['expression'],
    },
  },
  run: conditional,
};
