/** `no-op`: echoes its inputs (its items, or its declared `inputs` map). */
import type { InlinePlugin } from './inline-plugin';

export const noOp: InlinePlugin = ({ step, items, inputs }) => ({
  status: 'success',
  items: step.inputs ? [inputs] : items,
});
