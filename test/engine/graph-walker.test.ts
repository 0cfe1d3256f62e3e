import assert from 'node:assert/strict';
import {
  begin,
  buildTopology,
  createWalkerState,
  settle,
  type Activation,
  type ConnectionDefinition,
  type Item,
  type JoinStrategy,
  type StepDefinition,
  type StepOutcome,
  type Transition,
  type WorkflowDefinition,
} from '../../workflows/engine';

type StepSpec = Partial<Pick<StepDefinition, 'joinStrategy' | 'joinCount' | 'errorHandling'>> & { join?: JoinStrategy };

/**
 * Tiny builder: steps by id, edges as "A->B", "A:port->B", "A->B[false]" (a false
 * condition) or "A->B?cond" (a condition decided by the test).
 */
function graph(steps: Record<string, StepSpec>, edges: string[]): WorkflowDefinition {
  const connections: ConnectionDefinition[] = edges.map((text, index) => {
    const match = /^(\w+)(?::(\w+))?->(\w+)(\[false\]|\?\w+)?$/.exec(text);
    if (!match) throw new Error(`bad edge ${text}`);
    const [, from, port, to, gate] = match;
    return {
      id: `e${index}`,
      from,
      to,
      sourcePort: port ?? 'default',
      targetPort: 'default',
      ...(gate === '[false]' ? { condition: false } : gate ? { condition: gate.slice(1) } : {}),
    };
  });
  return {
    name: 'test',
    path: '/',
    triggers: [],
    connections,
    steps: Object.fromEntries(
      Object.entries(steps).map(([id, spec]) => [
        id,
        {
          id,
          type: 'module',
          pluginType: 'no-op',
          config: {},
          joinStrategy: spec.join,
          joinCount: spec.joinCount,
          errorHandling: spec.errorHandling,
        },
      ]),
    ),
  };
}

type Behaviour = (activation: Activation) => StepOutcome;

/** Runs the walk to the end, one ready step at a time; returns the run log and the final transition facts. */
function walk(
  definition: WorkflowDefinition,
  starts: Record<string, Item[]>,
  behaviours: Record<string, Behaviour> = {},
  conditions: Record<string, boolean> = {},
) {
  const topology = buildTopology(definition);
  const state = createWalkerState(topology);
  const condition = (edge: { condition?: string | boolean }) => conditions[String(edge.condition)] ?? true;
  const ran: string[] = [];
  const skipped: string[] = [];
  const inputs: Record<string, Item[][]> = {};
  let failure: Transition['failure'];
  const queue: Activation[] = [];
  const absorb = (transition: Transition) => {
    queue.push(...transition.ready);
    skipped.push(...transition.skipped);
    failure ??= transition.failure;
  };
  absorb(begin(topology, state, starts, condition));
  while (queue.length > 0 && !failure) {
    const activation = queue.shift()!;
    ran.push(activation.stepId);
    (inputs[activation.stepId] ??= []).push(activation.items);
    const outcome = behaviours[activation.stepId]?.(activation) ?? { status: 'completed', ports: { default: activation.items } };
    absorb(settle(topology, state, activation.stepId, { inputItems: activation.items, ...outcome }, condition));
  }
  return { ran, skipped, inputs, failure, state, topology };
}

const route =
  (port: string): Behaviour =>
  (a) => ({ status: 'completed', ports: { [port]: a.items } });
const fail: Behaviour = () => ({ status: 'failed' });

describe('graph walker', () => {
  it('propagates a skip down a very long chain without deep recursion', () => {
    //   A ─[false]─▶ S1 ──▶ S2 ──▶ … ──▶ S50000, and A ──▶ Z
    const length = 50_000;
    const steps: Record<string, StepSpec> = { A: {}, Z: {} };
    const edges = ['A->S1[false]', 'A->Z'];
    for (let index = 1; index <= length; index++) {
      steps[`S${index}`] = {};
      if (index > 1) edges.push(`S${index - 1}->S${index}`);
    }
    const result = walk(graph(steps, edges), { A: [{}] });
    assert.deepEqual(result.ran, ['A', 'Z']);
    assert.equal(result.skipped.length, length);
    assert.deepEqual(result.skipped.slice(0, 2), ['S1', 'S2'], 'skips in path order');
    assert.equal(result.skipped[length - 1], `S${length}`);
  });

  it('runs a chain in order', () => {
    //   A ──▶ B ──▶ C
    const result = walk(graph({ A: {}, B: {}, C: {} }, ['A->B', 'B->C']), { A: [{ n: 1 }] });
    assert.deepEqual(result.ran, ['A', 'B', 'C']);
    assert.deepEqual(result.inputs.C, [[{ n: 1 }]]);
  });

  it('does not hang an `all` join behind an untaken decider branch', () => {
    //        ┌─true──▶ T ──┐
    //   D ───┤             ├──▶ J (all)
    //        └─false─▶ F ──┘
    const definition = graph({ D: {}, T: {}, F: {}, J: {} }, ['D:true->T', 'D:false->F', 'T->J', 'F->J']);
    const result = walk(definition, { D: [{}] }, { D: route('true') });
    assert.deepEqual(result.ran, ['D', 'T', 'J']);
    assert.deepEqual(result.skipped, ['F']);
    assert.equal(result.failure, undefined);
  });

  it('skips a join when every branch into it is dead, and the skip propagates', () => {
    //   D ─true─▶ T ──▶ J ──▶ K        (D routes to "none")
    const result = walk(graph({ D: {}, T: {}, J: {}, K: {} }, ['D:true->T', 'T->J', 'J->K']), { D: [{}] }, { D: route('none') });
    assert.deepEqual(result.ran, ['D']);
    assert.deepEqual(result.skipped, ['T', 'J', 'K']);
  });

  it('runs a step fed by a success path and a failure path, whichever happens', () => {
    //   A ──▶ B ──▶ C
    //   └─(fallback)─▶ C
    const definition = graph({ A: { errorHandling: { fallbackStep: 'C' } }, B: {}, C: {} }, ['A->B', 'B->C']);
    const ok = walk(definition, { A: [{}] });
    assert.deepEqual(ok.ran, ['A', 'B', 'C']);
    const failed = walk(definition, { A: [{ x: 1 }] }, { A: fail });
    assert.deepEqual(failed.ran, ['A', 'C']);
    assert.deepEqual(failed.skipped, ['B']);
    assert.deepEqual(failed.inputs.C, [[{ x: 1 }]], 'the fallback receives the failed step input');
    assert.equal(failed.failure, undefined);
  });

  it('treats a declared condition:"false" edge to the fallback step as the error route', () => {
    //   A ──▶ B
    //   A ─[false]─▶ F   (fallbackStep F)
    const definition = graph({ A: { errorHandling: { fallbackStep: 'F' } }, B: {}, F: {} }, ['A->B', 'A->F[false]']);
    assert.equal(buildTopology(definition).edges.e1.kind, 'error');
    assert.deepEqual(walk(definition, { A: [{}] }, { A: fail }).ran, ['A', 'F']);
    const ok = walk(definition, { A: [{}] });
    assert.deepEqual(ok.ran, ['A', 'B']);
    assert.deepEqual(ok.skipped, ['F']);
  });

  it('fails the execution on an unhandled step failure', () => {
    const result = walk(graph({ A: {}, B: {} }, ['A->B']), { A: [{}] }, { A: fail });
    assert.deepEqual(result.failure, { stepId: 'A', code: 'STEP_FAILED', message: 'step "A" failed' });
  });

  it('continues past a failure with continueOnError through a failed edge', () => {
    const result = walk(graph({ A: { errorHandling: { continueOnError: true } }, B: {} }, ['A->B']), { A: [{}] }, { A: fail });
    assert.deepEqual(result.ran, ['A', 'B']);
    assert.equal(result.state.edgeStates.e0, 'failed');
  });

  it('fires an `any` join once per round, on the first arrival', () => {
    //   S ──▶ X ──▶ M (any)
    //   S ──▶ Y ──▶ M
    const result = walk(graph({ S: {}, X: {}, Y: {}, M: { join: 'any' } }, ['S->X', 'S->Y', 'X->M', 'Y->M']), { S: [{}] });
    assert.deepEqual(result.ran, ['S', 'X', 'Y', 'M']);
  });

  it('fires a `count` join once enough edges arrive', () => {
    //   S ──▶ X, Y, Z ──▶ M (count 2)
    const definition = graph({ S: {}, X: {}, Y: {}, Z: {}, M: { join: 'count', joinCount: 2 } }, [
      'S->X',
      'S->Y',
      'S->Z',
      'X->M',
      'Y->M',
      'Z->M',
    ]);
    const result = walk(definition, { S: [{}] }, { X: route('default'), Y: route('default') });
    assert.equal(result.ran.filter((id) => id === 'M').length, 1);
    assert.equal(result.inputs.M[0].length, 2);
  });

  it('concatenates items from every arriving edge in an `all` join', () => {
    const result = walk(
      graph({ S: {}, X: {}, Y: {}, M: {} }, ['S->X', 'S->Y', 'X->M', 'Y->M']),
      { S: [{}] },
      {
        X: () => ({ status: 'completed', ports: { default: [{ from: 'X' }] } }),
        Y: () => ({ status: 'completed', ports: { default: [{ from: 'Y' }, { from: 'Y2' }] } }),
      },
    );
    assert.deepEqual(result.inputs.M, [[{ from: 'X' }, { from: 'Y' }, { from: 'Y2' }]]);
  });

  it('re-runs a loop through a back-edge, each run a new round', () => {
    //   A ──▶ B ──▶ C ─loop─▶ B (back-edge)
    //              └─done──▶ D
    const definition = graph({ A: {}, B: {}, C: {}, D: {} }, ['A->B', 'B->C', 'C:loop->B', 'C:done->D']);
    assert.equal(buildTopology(definition).edges.e2.kind, 'back');
    const result = walk(definition, { A: [{}] }, { C: (a) => route(a.run < 3 ? 'loop' : 'done')(a) });
    assert.deepEqual(result.ran, ['A', 'B', 'C', 'B', 'C', 'B', 'C', 'D']);
  });

  it('stops a runaway loop at 1000 runs of one step', () => {
    const definition = graph({ A: {}, B: {} }, ['A->B', 'B->A']);
    const result = walk(definition, { A: [{}] });
    assert.equal(result.failure?.code, 'LOOP_LIMIT_EXCEEDED');
    assert.equal(result.ran.filter((id) => id === 'A').length, 1000);
  });

  it('gates edges with conditions; a false condition skips downstream', () => {
    //   A ─?yes─▶ B     A ─?no─▶ C ──▶ E
    const definition = graph({ A: {}, B: {}, C: {}, E: {} }, ['A->B?yes', 'A->C?no', 'C->E']);
    const result = walk(definition, { A: [{}] }, {}, { yes: true, no: false });
    assert.deepEqual(result.ran, ['A', 'B']);
    assert.deepEqual(result.skipped, ['C', 'E']);
  });

  it('skips untriggered entry steps: manual + cron triggers into one entry step', () => {
    //   manual ──▶ S (all) ◀── cron
    const definition = graph({ manual: {}, cron: {}, S: {} }, ['manual->S', 'cron->S']);
    const result = walk(definition, { manual: [{ who: 'api' }] });
    assert.deepEqual(result.ran, ['manual', 'S']);
    assert.deepEqual(result.inputs.S, [[{ who: 'api' }]]);
  });

  it('routes items per port (a per-item decider splits a batch)', () => {
    const definition = graph({ D: {}, Even: {}, Odd: {} }, ['D:even->Even', 'D:odd->Odd']);
    const result = walk(
      definition,
      { D: [{ n: 1 }, { n: 2 }, { n: 3 }] },
      {
        D: (a) => ({
          status: 'completed',
          ports: { even: a.items.filter((i) => (i.n as number) % 2 === 0), odd: a.items.filter((i) => (i.n as number) % 2 === 1) },
        }),
      },
    );
    assert.deepEqual(result.inputs.Even, [[{ n: 2 }]]);
    assert.deepEqual(result.inputs.Odd, [[{ n: 1 }, { n: 3 }]]);
  });
});
