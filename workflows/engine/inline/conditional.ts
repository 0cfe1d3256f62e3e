/** `conditional` decider: the truthiness of a raw expression picks the `true` or `false` port (renameable). */
import { evaluateExpression, isTruthy } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { InlinePlugin } from './inline-plugin';

export const conditional: InlinePlugin = ({ config, items, scope }) => {
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
