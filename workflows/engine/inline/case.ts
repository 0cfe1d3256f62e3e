/** `case` decider: the first case whose `match` equals the value (===) picks its port, else the default port. */
import { evaluateExpression } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { InlinePlugin, InlineRun } from './inline-plugin';
import { str } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

const caseDecider: InlineRun = ({ config, items, scope }) => {
  const expression = config.expression;
  const value = typeof expression === 'string' ? evaluateExpression(unwrapRaw(expression), scope) : expression;
  const cases = Array.isArray(config.cases) ? (config.cases as Array<Record<string, unknown>>) : [];
  const matched = cases.find((entry) => entry !== null && typeof entry === 'object' && entry.match === value);
  const port = typeof matched?.port === 'string' ? matched.port : typeof config.default === 'string' ? config.default : 'default';
  return { status: 'success', items, outputs: { matchedPort: port, result: value ?? null }, activePorts: [port] };
};

export const casePlugin: InlinePlugin = {
  descriptor: {
    name: 'case',
    kind: 'decider',
    description: 'Routes to the first case whose value matches (===).',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    dynamicPorts: true,
    outputSchema: closedOutputs({
      matchedPort: field('string', 'the port the step left through'),
      result: field(undefined, 'the value of the expression (null when undefined)'),
    }),
    configSchema: {
      properties: {
        expression: { type: 'string', format: 'expression' },
        cases: {
          type: 'array',
          items: { type: 'object', properties: { port: str(undefined, { minLength: 1 }), match: { type: 'any' } }, required: ['port'] },
        },
        default: str(),
      },
      required: ['expression', 'cases'],
    },
  },
  run: caseDecider,
};
