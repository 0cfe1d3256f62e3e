/** `case` decider: the first case whose `match` equals the value (===) picks its port, else the default port. */
import { evaluateExpression } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { InlinePlugin } from './inline-plugin';

export const caseDecider: InlinePlugin = ({ config, items, scope }) => {
  const expression = config.expression;
  const value = typeof expression === 'string' ? evaluateExpression(unwrapRaw(expression), scope) : expression;
  const cases = Array.isArray(config.cases) ? (config.cases as Array<Record<string, unknown>>) : [];
  const matched = cases.find((entry) => entry !== null && typeof entry === 'object' && entry.match === value);
  const port = typeof matched?.port === 'string' ? matched.port : typeof config.default === 'string' ? config.default : 'default';
  return { status: 'success', items, outputs: { matchedPort: port, result: value ?? null }, activePorts: [port] };
};
