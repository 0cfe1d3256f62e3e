/**
 * `split-in-batches`: the first run stores the items and sends batch 1 to
 * `loop`; each re-entry (through a back-edge) collects the processed items and
 * sends the next batch; when nothing remains, everything processed goes to
 * `done`, with `totalProcessed`. State lives in the step's node context for the whole execution.
 * What it splits: the list at `arrayPath` in the first item; without
 * `arrayPath`, its items, or the list of a sole `{items: [...]}` item.
 */
import { followsRule } from '../engine-rules';
import { readPath } from '../runtime/paths';
import type { Item } from '../runtime/types';
import type { InlinePlugin, InlineRun } from './inline-plugin';
import { str, bool, int } from '../plugins/schema';
import { closedOutputs, field } from '../plugins/outputs';

interface BatchState {
  remaining: Item[];
  processed: Item[];
  batchIndex: number;
  totalBatches: number;
  /** The batch last sent to `loop` (what a re-entry stands for when the loop body gives back a summary instead). */
  sent?: Item[];
  /** The loop body gave back other than one item per item sent: `done` reports the batches sent. */
  summarized?: boolean;
}

const splitInBatches: InlineRun = ({ step, config, items, ctx, reentered }) => {
  const batchSize = typeof config.batchSize === 'number' && config.batchSize >= 1 ? Math.floor(config.batchSize) : 1;
  let state = ctx.nodeContext[step.id] as unknown as BatchState | undefined;
  if (!state || !reentered || config.reset === true) {
    const source = typeof config.arrayPath === 'string' ? readPath(items[0] ?? {}, config.arrayPath) : itemsToSplit(items);
    const all = (Array.isArray(source) ? source : []).map((entry) =>
      entry !== null && typeof entry === 'object' ? (entry as Item) : { value: entry },
    );
    state = { remaining: all, processed: [], batchIndex: -1, totalBatches: Math.ceil(all.length / batchSize) };
  } else if (followsRule(ctx.input, 'batches-report-items-sent')) {
    // The loop body's items when it gives back one per item sent, else the batch sent: a body that runs once per
    // batch returns a summary, and `done` still reports every item (as the compatible engine does). The first batch
    // is full, so a summarizing body shows itself there, and its last, shorter batch is read alike.
    const sent = state.sent;
    if (sent !== undefined && items.length !== sent.length) state.summarized = true;
    state.processed.push(...(sent !== undefined && state.summarized === true ? sent : items));
  } else {
    state.processed.push(...items);
  }
  ctx.nodeContext[step.id] = state as unknown as Record<string, unknown>;

  if (state.remaining.length === 0) {
    const processed = state.processed;
    delete ctx.nodeContext[step.id];
    const counted = followsRule(ctx.input, 'batches-report-items-sent') ? { totalProcessed: processed.length } : {};
    return {
      status: 'success',
      items: processed,
      outputs: { items: processed, batchIndex: state.batchIndex, totalBatches: state.totalBatches, ...counted, done: true },
      activePorts: ['done'],
    };
  }
  const batch = state.remaining.splice(0, batchSize);
  state.batchIndex += 1;
  if (followsRule(ctx.input, 'batches-report-items-sent')) state.sent = batch;
  return {
    status: 'success',
    items: batch,
    outputs: { items: batch, batchIndex: state.batchIndex, totalBatches: state.totalBatches, done: false },
    activePorts: ['loop'],
  };
};

/**
 * Without `arrayPath`: the items, or the list inside a sole `{items: [...]}` item (what a code-exec script
 * returning `{items: [...]}` gives), which the compatible engine splits item by item.
 */
function itemsToSplit(items: Item[]): unknown {
  const envelope = items.length === 1 ? items[0].items : undefined;
  return Array.isArray(envelope) ? envelope : items;
}

export const splitInBatchesPlugin: InlinePlugin = {
  descriptor: {
    name: 'split-in-batches',
    kind: 'module',
    description: 'Sends batches around a loop, then everything to done.',
    executeMode: 'all',
    inline: true,
    nodeState: true,
    inputPorts: ['default'],
    outputPorts: ['loop', 'done'],
    outputSchema: closedOutputs({
      items: field('array', 'this batch (on loop), or every processed item (on done)'),
      batchIndex: field('integer', 'the index of this batch, from 0'),
      totalBatches: field('integer', 'how many batches the items make'),
      totalProcessed: field('integer', 'how many items went through the loop (on done)'),
      done: field('boolean', 'true when every batch has been sent (the done port)'),
    }),
    configSchema: { properties: { batchSize: int(undefined, 1), reset: bool(), arrayPath: str() } },
  },
  run: splitInBatches,
};
