/** Step shapes the engine benches share, so their "pure step" figures measure the same work. */

/** A pure step (no activity): in turn a conditional, a set-variable and a log, over the variable `n`. */
export const pureStep = (i: number): Record<string, unknown> =>
  i % 3 === 0
    ? // A conditional leaves through its `true` port; naming it `default` keeps the chain (wired on default) running to the end.
      { type: 'decider', pluginType: 'conditional', config: { expression: 'variables.n >= 0', truePort: 'default' }, joinStrategy: 'any' }
    : i % 3 === 1
      ? { type: 'module', pluginType: 'set-variable', config: { path: 'n', value: '${{ variables.n + 1 }}' } }
      : { type: 'module', pluginType: 'log', config: { message: 'n is ${{ variables.n }}' } };
