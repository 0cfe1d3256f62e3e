/**
 * Step 5 of the graph layout (./layout.ts): vertical positions, the order within each rank kept, each vertex
 * as close as the gaps allow to the mean of its neighbours (isotonic regression, pool-adjacent-violators), a
 * few passes. Pure: no DOM.
 */
import type { LayeredGraph } from './layout-layers';

const POSITION_PASSES = 4;
const DUMMY_SEP = 10;

/** Each vertex's vertical centre (`y`) and its height (`size`: 0 for a dummy point). */
export function verticalPositions(
  { vDummy, vIn, vOut, total, maxRank, layers }: LayeredGraph,
  spacing: { nodeHeight: number; nodeSep: number },
): { y: Float64Array; size: (v: number) => number } {
  const size = (v: number) => (vDummy[v] ? 0 : spacing.nodeHeight);
  const gap = (a: number, b: number) => (size(a) + size(b)) / 2 + (vDummy[a] || vDummy[b] ? DUMMY_SEP : spacing.nodeSep);
  const y = new Float64Array(total);
  for (const layer of layers) {
    let at = 0;
    layer.forEach((v, i) => {
      if (i > 0) at += gap(layer[i - 1], v);
      y[v] = at;
    });
  }
  const place = (layer: number[], neighbours: number[][]) => {
    if (layer.length === 0) return;
    const offsets = new Float64Array(layer.length);
    for (let i = 1; i < layer.length; i++) offsets[i] = offsets[i - 1] + gap(layer[i - 1], layer[i]);
    const wanted = layer.map((v, i) => {
      const ns = neighbours[v];
      if (ns.length === 0) return y[v] - offsets[i];
      let sum = 0;
      for (const w of ns) sum += y[w];
      return sum / ns.length - offsets[i];
    });
    const fitted = isotonic(wanted);
    layer.forEach((v, i) => (y[v] = fitted[i] + offsets[i]));
  };
  for (let pass = 0; pass < POSITION_PASSES; pass++) {
    if (pass % 2 === 0) for (let r = 1; r <= maxRank; r++) place(layers[r], vIn);
    else for (let r = maxRank - 1; r >= 0; r--) place(layers[r], vOut);
  }
  // The first rank (usually the triggers) follows what it feeds; a last pass down settles the rest.
  if (maxRank >= 0) place(layers[0], vOut);
  for (let r = 1; r <= maxRank; r++) place(layers[r], vIn);
  return { y, size };
}

/** The non-decreasing sequence nearest (least squares) to `values`: pool adjacent violators, linear time. */
export function isotonic(values: number[]): number[] {
  const means: number[] = [];
  const weights: number[] = [];
  for (const value of values) {
    let mean = value;
    let weight = 1;
    while (means.length > 0 && means[means.length - 1] > mean) {
      const m = means.pop()!;
      const w = weights.pop()!;
      mean = (m * w + mean * weight) / (w + weight);
      weight += w;
    }
    means.push(mean);
    weights.push(weight);
  }
  const result: number[] = [];
  means.forEach((mean, i) => {
    for (let k = 0; k < weights[i]; k++) result.push(mean);
  });
  return result;
}
