/** `no-op`: echoes its inputs (its items, or its declared `inputs` map). */
import type { InlinePlugin, InlineRun } from './inline-plugin';
import { openOutputs } from '../plugins/outputs';

const noOp: InlineRun = ({ step, items, inputs }) => ({
  status: 'success',
  items: step.inputs ? [inputs] : items,
});

export const noOpPlugin: InlinePlugin = {
  descriptor: {
    name: 'no-op',
    kind: 'module',
    description: 'Echoes its inputs.',
    executeMode: 'each',
    inline: true,
    inputPorts: ['default'],
    outputPorts: ['default'],
    outputSchema: openOutputs('its inputs, echoed: the declared inputs map, else the item it received'),
    configSchema: { properties: {} },
  },
  run: noOp,
};
